/**
 * @module content/abilities/message.send
 * Sends an email over SMTP through the tenant's connection or the platform account (mail.ts), with a
 * status and the server's answer per recipient, recorded in `deliveries`; `idempotencyKey` makes a
 * retry answer the first message instead of sending again. The SMS channel has no provider yet and
 * answers 501.
 */
import { GantryError } from "@gantry/kit";
import { ability } from "../context.ts";
import { type EmailRequest, sendEmail } from "../messages.ts";

export default ability("message.send", async (input, call, ctx) => {
  const req = input as EmailRequest & { channel: "email" | "sms" };
  if (req.channel !== "email")
    throw new GantryError("not_implemented", "message.send with channel sms is not available yet; use channel email.", {
      reason: "No SMS provider adapter is wired in the content service yet.",
    });
  return sendEmail(ctx, call, "message.send", req, req);
});
