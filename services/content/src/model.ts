/**
 * @module content/model
 * The optional model adapter of document.summarize: one `POST <CONTENT_SUMMARY_MODEL_URL>/chat/completions`
 * in the OpenAI wire format (bearer key, `model`, a system and a user message, `temperature: 0`),
 * answering the first choice's text. The endpoint is the operator's configuration, not a caller's
 * URL. Failures map to the closed set: no answer in time 504, anything else from the endpoint 502.
 */
import { GantryError, stopsWithCall } from "@gantry/kit";
import type { ContentConfig } from "./config.ts";
import type { Length } from "./summarize.ts";

const GUIDANCE: Record<Length, string> = {
  short: "one to three sentences",
  medium: "three to seven sentences",
  long: "five to fifteen sentences",
};

interface ChatCompletion {
  model?: unknown;
  choices?: Array<{ message?: { content?: unknown } }>;
}

export async function modelSummary(
  config: ContentConfig,
  text: string,
  length: Length,
): Promise<{ summary: string; model: string }> {
  const base = config.CONTENT_SUMMARY_MODEL_URL as string;
  const url = `${base.replace(/(?<!\/)\/+$/, "")}/chat/completions`;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (config.CONTENT_SUMMARY_MODEL_KEY) headers.authorization = `Bearer ${config.CONTENT_SUMMARY_MODEL_KEY}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        model: config.CONTENT_SUMMARY_MODEL,
        temperature: 0,
        messages: [
          {
            role: "system",
            content: `Summarize the user's text in ${GUIDANCE[length]}. Use only facts stated in the text. Answer with the summary only, as plain prose.`,
          },
          { role: "user", content: text },
        ],
      }),
      // Stops with the call it works for too (kit/call-signal): its caller gave up.
      signal: stopsWithCall(AbortSignal.timeout(config.CONTENT_SUMMARY_MODEL_TIMEOUT_MS)),
    });
  } catch (err) {
    if ((err as Error).name === "TimeoutError")
      throw new GantryError("timeout", "The summary model did not answer in time; try method extractive.", {
        cause: err,
      });
    throw new GantryError("upstream_failed", "The summary model could not be reached; try method extractive.", {
      cause: err,
    });
  }
  let body: ChatCompletion;
  try {
    body = (await res.json()) as ChatCompletion;
  } catch (err) {
    throw new GantryError("upstream_failed", `The summary model answered HTTP ${res.status} without JSON.`, {
      cause: err,
    });
  }
  const content = body.choices?.[0]?.message?.content;
  if (!res.ok || typeof content !== "string" || !content.trim())
    throw new GantryError("upstream_failed", `The summary model answered HTTP ${res.status} without a summary.`);
  return {
    summary: content.trim(),
    model: typeof body.model === "string" && body.model ? body.model : config.CONTENT_SUMMARY_MODEL,
  };
}
