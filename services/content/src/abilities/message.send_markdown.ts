/**
 * @module content/abilities/message.send_markdown
 * Renders Markdown (headings, lists, tables, code, links; unsafe links stripped, raw HTML shown as
 * text) into the styled email frame of email.render with `brand` as its colour, plus the Markdown
 * itself as the plain-text part, and sends it like message.send.
 */
import { ability } from "../context.ts";
import { renderMarkdownEmail } from "../email/templates.ts";
import { markdownToHtml } from "../markdown.ts";
import { type EmailRequest, sendEmail } from "../messages.ts";
import { resolveTheme } from "../theme.ts";

export default ability("message.send_markdown", async (input, call, ctx) => {
  const theme = resolveTheme(undefined, { brandColor: input.brand });
  const html = await renderMarkdownEmail(input.subject, markdownToHtml(input.markdown), theme);
  return sendEmail(
    ctx,
    call,
    "message.send_markdown",
    { ...(input as EmailRequest), html, text: input.markdown },
    input,
  );
});
