/**
 * @module content/config
 * The content service's own environment (on top of the kit's base schema), parsed once at start.
 *
 * Email transport, in order: the tenant's `email` connection or the platform account that the
 * connections service answers (`ResolveCredential`), else `CONTENT_SMTP_URL` (the platform's own
 * SMTP server), else the **outbox**: the message is stored in `deliveries` with status `captured`
 * and `transport: "outbox"` and is never delivered — the quick start (`npm start`, no
 * configuration) works, and no result ever says `sent` for a message no server took.
 *
 * SMS transport (sms.ts): the tenant's `sms` connection or the platform account that connections
 * answers, else the platform's own Twilio account (`TWILIO_*`); with none of them channel sms answers
 * 501 and discovery says which variables to set. There is no SMS outbox.
 */
import { BLOB_ENV, defineEnv, type ServiceConfig } from "@gantry/kit";

export const CONTENT_ENV = defineEnv({
  // Documents, guides, help centres and tenant skills are blobs (kit/src/blob): BLOB_STORE, BLOB_S3_*.
  ...BLOB_ENV,
  GANTRY_TEST_CLOCK_FILE: {
    type: "string",
    description: "tests only (NODE_ENV=test): file holding a clock offset in ms (kit/src/clock.ts)",
  },
  CONTENT_SMTP_URL: {
    type: "string",
    description:
      "platform SMTP server used when the connections service has neither a tenant connection nor a platform account for `email`: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`; unset: the outbox (messages stored, never delivered, status `captured`)",
  },
  CONTENT_SMTP_FROM: {
    type: "string",
    default: "Gantry <no-reply@gantry.invalid>",
    description: "default sender when the input and the credential name none",
  },
  CONTENT_SMTP_TIMEOUT_MS: {
    type: "integer",
    minimum: 1000,
    maximum: 120_000,
    default: 20_000,
    description: "connection and greeting timeout of one SMTP delivery",
  },
  CONTENT_OAUTH_SMTP_URL: {
    type: "string",
    description:
      "SMTP server a tenant's OAuth `email` connection sends through (XOAUTH2, the connection's external ref as user), e.g. `smtps://smtp.gmail.com:465`; unset: tenant connections are not used for email (the platform account sends)",
  },
  TWILIO_ACCOUNT_SID: {
    type: "string",
    description:
      "SMS (message.send channel sms): the platform's Twilio Account SID (`AC…`), used when the connections service has neither a tenant connection nor a platform account for `sms`; unset: channel sms answers 501",
  },
  TWILIO_AUTH_TOKEN: {
    type: "string",
    description: "the auth token of TWILIO_ACCOUNT_SID (HTTP Basic password; never logged)",
  },
  TWILIO_FROM: {
    type: "string",
    description:
      "default SMS sender: a Twilio number in E.164 or an alphanumeric sender id; set it or TWILIO_MESSAGING_SERVICE_SID",
  },
  TWILIO_MESSAGING_SERVICE_SID: {
    type: "string",
    description:
      "a Twilio Messaging Service (`MG…`) that picks the sender when the input names none (instead of TWILIO_FROM)",
  },
  TWILIO_API_URL: {
    type: "string",
    default: "https://api.twilio.com",
    description:
      "base URL of Twilio's REST API (operator-chosen; tests point it at a stand-in); `/2010-04-01/Accounts/{AccountSid}/Messages.json` is called",
  },
  TWILIO_TIMEOUT_MS: {
    type: "integer",
    minimum: 1000,
    maximum: 15_000,
    default: 10_000,
    description: "time limit of one request to Twilio (one per recipient, ten at a time)",
  },
  CONTENT_SIGNING_KEY: {
    type: "string",
    description:
      "secret (≥ 32 characters) that signs download links; required when NODE_ENV=production; otherwise a random per-process key (links die with the process)",
  },
  CONTENT_ARTIFACT_TTL_SECONDS: {
    type: "integer",
    minimum: 60,
    maximum: 604_800,
    default: 86_400,
    description: "how long a document's download link works; the bytes are deleted after it",
  },
  CONTENT_PDF_TIMEOUT_MS: {
    type: "integer",
    minimum: 1000,
    maximum: 120_000,
    default: 30_000,
    description: "time limit of one PDF render in Chromium",
  },
  CONTENT_PDF_IDLE_MS: {
    type: "integer",
    minimum: 0,
    default: 60_000,
    description:
      "Chromium is ended after this long without a PDF render and started again by the next one (0: keep it running)",
  },
  CONTENT_CHROMIUM_PATH: {
    type: "string",
    default: "/usr/bin/chromium",
    description: "Chromium executable used for PDFs (Debian `chromium`)",
  },
  CONTENT_ALLOW_LOOPBACK: {
    type: "boolean",
    default: false,
    description:
      "tests and local development only: let guide.list fetch a `publicUrl` on loopback (the kit's SSRF guard otherwise refuses it)",
  },
  CONTENT_SUMMARY_MODEL_URL: {
    type: "string",
    description:
      "base URL of an OpenAI-compatible API (`…/v1`; `POST /chat/completions` is called) for document.summarize `method: model`; unset: only extractive summaries",
  },
  CONTENT_SUMMARY_MODEL: { type: "string", default: "gpt-4o-mini", description: "model name sent to that endpoint" },
  CONTENT_SUMMARY_MODEL_KEY: { type: "string", description: "bearer token for that endpoint (never logged)" },
  CONTENT_SUMMARY_MODEL_TIMEOUT_MS: {
    type: "integer",
    minimum: 1000,
    maximum: 300_000,
    default: 60_000,
    description: "time limit of one model call",
  },
  CONTENT_MAX_DOCUMENT_BYTES: {
    type: "integer",
    minimum: 10_000,
    maximum: 100_000_000,
    default: 20_000_000,
    description: "largest rendered document (PDF or HTML) stored; larger renders are refused with 413",
  },
});

export type ContentConfig = ServiceConfig<typeof CONTENT_ENV>;
