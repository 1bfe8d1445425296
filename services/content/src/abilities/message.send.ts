/**
 * @module content/abilities/message.send
 * Sends an email over SMTP through the tenant's connection or the platform account (mail.ts), or an
 * SMS over Twilio's Messages API the same way (sms.ts), with a status and the provider's answer per
 * recipient, recorded in `deliveries`; `idempotencyKey` makes a retry answer the first message
 * instead of sending again. Without any SMS account configured, channel sms answers 501 naming the
 * variables to set.
 */
import { ability } from "../context.ts";
import { type EmailRequest, type SmsRequest, sendEmail, sendSmsMessage } from "../messages.ts";

export default ability("message.send", async (input, call, ctx) => {
  const req = input as (EmailRequest & { channel: "email" }) | (SmsRequest & { channel: "sms" });
  if (req.channel === "sms") return sendSmsMessage(ctx, call, "message.send", req);
  return sendEmail(ctx, call, "message.send", req, req);
});
