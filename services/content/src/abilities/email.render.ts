/**
 * @module content/abilities/email.render
 * Renders a template (notice, invoice, receipt) into an HTML part (MJML, CSS inlined, the theme
 * applied) and a plain-text part, without sending anything. Deterministic: the same input renders
 * byte-equal output, and `sha256` proves it. Invoice and receipt totals are computed from the line
 * items in integer minor units and returned as printed.
 */
import { sha256Hex } from "@gantry/kit";
import { moneyOut } from "@gantry/kit/money.ts";
import { ability } from "../context.ts";
import { renderTemplate } from "../email/templates.ts";
import { resolveTheme } from "../theme.ts";

export default ability("email.render", async (input) => {
  const { template, subject, props } = input.spec;
  const rendered = await renderTemplate(template, subject, props as Record<string, unknown>, resolveTheme(input.theme));
  const t = rendered.totals;
  return {
    template,
    subject,
    html: rendered.html,
    text: rendered.text,
    totals: t
      ? {
          subtotal: moneyOut(t.subtotal, t.currency),
          tax: t.tax === null ? null : moneyOut(t.tax, t.currency),
          total: moneyOut(t.total, t.currency),
        }
      : null,
    sha256: sha256Hex(rendered.html),
  };
});
