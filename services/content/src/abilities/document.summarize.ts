/**
 * @module content/abilities/document.summarize
 * An extractive summary by default (summarize.ts: Intl.Segmenter sentences ranked by TextRank),
 * deterministic, each sentence with its offsets in the input. `method: model` asks the configured
 * OpenAI-compatible endpoint instead (model.ts); without one it is refused naming the field.
 */
import { GantryError } from "@gantry/kit";
import { ability } from "../context.ts";
import { modelSummary } from "../model.ts";
import { sentences, summarize } from "../summarize.ts";

export default ability("document.summarize", async (input, _call, ctx) => {
  if (input.method !== "model") return summarize(input.text, input.length);
  if (!ctx.config.CONTENT_SUMMARY_MODEL_URL)
    throw new GantryError(
      "validation_failed",
      "method model needs a summary model, and this deployment configures none; use method extractive.",
      {
        details: [
          {
            path: "/input/method",
            message: "/input/method model is not configured here",
            code: "model_not_configured",
          },
        ],
      },
    );
  const { summary, model } = await modelSummary(ctx.config, input.text, input.length);
  return {
    summary,
    length: input.length,
    method: "model" as const,
    model,
    sentences: [],
    inputChars: input.text.length,
    inputSentences: sentences(input.text).length,
  };
});
