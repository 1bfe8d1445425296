-- content: messages and guides carry the vertical they were made in (issue 32 item 7): the call's
-- context.verticalId, or null when the call named none. No ability lists messages, and guide.list
-- reads the help centre's manifest rather than these rows, so no index. Earlier rows stay null.
ALTER TABLE "deliveries" ADD COLUMN "vertical" TEXT;
ALTER TABLE "guides" ADD COLUMN "vertical" TEXT;
