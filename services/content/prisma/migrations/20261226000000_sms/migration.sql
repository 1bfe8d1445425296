-- SMS over Twilio's Messages API (issue 32 item 4): every recipient of an SMS is its own message at
-- the provider, so each recipient row keeps the provider's id for it (Twilio's `SM…` sid) and the
-- number of segments it was split into; email recipients leave both null.
ALTER TABLE "delivery_recipients" ADD COLUMN "provider_message_id" TEXT;
ALTER TABLE "delivery_recipients" ADD COLUMN "segments" INTEGER;
