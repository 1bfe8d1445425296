/**
 * @module catalogue/content/document
 * The content service's abilities of the `document` area (Documents: document generation and summaries).
 * `proto/catalogue/content.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { enumOf, fields, int, list, nullableStr, num, str, timestamp } from "../output.ts";
import { line, nullable, object, oneOfValues, text } from "../schema.ts";
import { theme, prefixedId, sha256 } from "./shared.ts";

export const abilities = [
  {
    id: "document.generate",
    // A PDF render in Chromium may take CONTENT_PDF_TIMEOUT_MS (30 s by default), plus starting it.
    deadlineMs: 60_000,
    summary:
      "Render Markdown into a styled PDF (headless Chromium) or HTML document with the tenant's theme; stores it and returns a signed download URL that expires.",
    inputSource: "ours",
    input: object(
      {
        title: line("Document title (cover line and file metadata).", 200),
        markdown: text(
          "Document body in Markdown: headings, lists, tables, code blocks, links, images by https URL (kept in HTML; PDFs load nothing from the network, so remote images are left out). Raw HTML is shown as text; links other than http, https and mailto are stripped. A rendered file over the service's size limit (20 MB by default) is refused with 413.",
          500_000,
        ),
        format: oneOfValues("Output format.", ["pdf", "html"], "pdf"),
        filename: text("File name for the download, without extension.", 100, {
          pattern: "^[A-Za-z0-9][A-Za-z0-9 ._-]*$",
        }),
        theme: theme(),
      },
      ["title", "markdown"],
    ),
    output: fields(
      {
        id: prefixedId("art", "Document id (`art_…`): the stored artifact."),
        title: str("Document title, as given."),
        format: enumOf("Format of the file.", ["pdf", "html"]),
        filename: str("File name of the download, with its extension (e.g. `care-plan-proposal.pdf`)."),
        contentType: str("MIME type: `application/pdf` or `text/html; charset=utf-8`."),
        bytes: int("Size of the file in bytes."),
        pages: nullable(int("Pages."), "PDF: number of pages; null for HTML."),
        sha256: sha256("SHA-256 (hex) of the file's bytes."),
        url: str("Signed download URL; works without an API key until `expires`.", { format: "uri" }),
        expires: timestamp("When `url` stops working (RFC 3339)."),
        created: timestamp("When the document was rendered (RFC 3339)."),
      },
      [],
      { description: "The rendered document and where to download it." },
    ),
    example: {
      title: "Website care plan — proposal",
      markdown:
        "# Proposal\n\n## Scope\n\n- Monthly updates\n- Uptime monitoring\n\n| Item | Price |\n|---|---|\n| Care plan | $49.99/month |",
      format: "pdf",
      filename: "care-plan-proposal",
      theme: { brandColor: "#1e3a5f", firmName: "Northwind Studio" },
    },
  },
  {
    id: "document.summarize",
    summary: "Summarize a text at a short, medium or long length.",
    inputSource: "spec",
    input: object(
      {
        text: text("The text to summarize.", 200_000),
        length: oneOfValues(
          "Summary length, as a sentence budget over the n sentences of the text: short = ceil(10% of n), 1 to 3 sentences; medium = ceil(20% of n), 3 to 7; long = ceil(35% of n), 5 to 15; never more than n.",
          ["short", "medium", "long"],
          "medium",
        ),
        method: oneOfValues(
          "`extractive` (default): sentences chosen from the text by the deterministic ranker, each with its offsets; `model`: written by the OpenAI-compatible model endpoint the deployment configures (CONTENT_SUMMARY_MODEL_URL), refused with 400 `model_not_configured` when there is none.",
          ["extractive", "model"],
          "extractive",
        ),
      },
      ["text"],
    ),
    output: fields(
      {
        summary: str("The summary. Extractive: the chosen sentences in input order, joined by single spaces."),
        length: enumOf("Length that was asked for.", ["short", "medium", "long"]),
        method: enumOf(
          "`extractive`: sentences chosen from the text by the deterministic TextRank-style ranker (the default; the same input gives the same summary); `model`: written by the configured OpenAI-compatible model endpoint.",
          ["extractive", "model"],
        ),
        model: nullableStr("Model that wrote the summary when `method` is `model`; null for extractive."),
        sentences: list(
          "Extractive: the summary's sentences in input order, each with its place in the input so it can be checked; empty when `method` is `model`.",
          fields(
            {
              text: str("The sentence exactly as in the input: `input.text.slice(start, end)`."),
              start: int(
                "Offset of its first character in the input, in UTF-16 code units (a JavaScript string index).",
              ),
              end: int("Offset just past its last character (exclusive), in UTF-16 code units."),
              index: int("Its position among the input's sentences (0-based)."),
              score: num("Ranker score, 0..1 (higher is more central to the text)."),
            },
            [],
            { description: "One summary sentence." },
          ),
        ),
        inputChars: int("Length of the input text in UTF-16 code units."),
        inputSentences: int("Number of sentences the segmenter found in the input."),
      },
      [],
      { description: "The summary and, for extractive summaries, where each sentence comes from." },
    ),
    example: {
      text: "Quarterly report. Revenue grew 12% to $1.2M, driven by the care-plan subscriptions launched in February. Churn fell from 4% to 2.5% after onboarding calls were introduced. Costs rose 8%, mainly hosting. Next quarter: launch the reseller programme and hire a second support engineer.",
      length: "short",
    },
  },
] as const satisfies readonly AbilityEntry[];
