/**
 * @module content/service
 * The content service: email rendering (MJML templates with the tenant theme) and delivery over real
 * SMTP (nodemailer), SMS over Twilio's Messages API (sms.ts), each through the tenant's connection or
 * the platform account, Markdown documents as styled HTML and PDF (headless Chromium) behind signed
 * expiring links, extractive summaries, Guide Center help centres, and Agent Skills.
 *
 * `init` checks the configuration first (a bad value stops the start, naming it), then starts the
 * sweep that deletes expired artifacts. Every file the service keeps is a blob in the kit's blob
 * store (kit/src/blob; Postgres by default), so nothing is on the pod's disk. Downloads and help centres are served through the
 * gateway's public `/v1/files/content/…` (files.ts, over the kit's HttpIngress).
 */
import {
  asSystem,
  createBlobStore,
  createClock,
  credentialResolver,
  defineService,
  ingressService,
  linkSigningKey,
  prismaClient,
  SsrfGuard,
} from "@gantry/kit";
import { lessonsReader } from "@gantry/kit/lessons-reader.ts";
import { ArtifactStore } from "./artifacts.ts";
import { CONTENT_ENV } from "./config.ts";
import type { Context } from "./context.ts";
import { PrismaClient } from "./db.ts";
import { filesIngress } from "./files.ts";
import { PdfRenderer } from "./pdf.ts";
import { loadBuiltins } from "./skills.ts";
import { checkSmsConfig, smsNeeds } from "./sms.ts";
import { closeInterruptedSends, sweepArtifacts } from "./sweep.ts";

const SWEEP_MS = 10 * 60_000;

export default defineService({
  name: "content",
  env: CONTENT_ENV,
  init: async (deps): Promise<Context & { stop: () => Promise<void> }> => {
    const { config, log } = deps;
    checkSmsConfig(config);
    const skills = loadBuiltins();
    const signing = linkSigningKey("content", "CONTENT_SIGNING_KEY", config.CONTENT_SIGNING_KEY, config.NODE_ENV);
    const now = createClock({ NODE_ENV: config.NODE_ENV, GANTRY_TEST_CLOCK_FILE: config.GANTRY_TEST_CLOCK_FILE });

    const pdf = new PdfRenderer(
      config.CONTENT_CHROMIUM_PATH,
      config.CONTENT_PDF_TIMEOUT_MS,
      config.CONTENT_PDF_IDLE_MS,
    );
    const credentials = credentialResolver(deps.addrs.connections, deps.callKeys.signer("connections"));
    if (!deps.pool) throw new Error("content started without a database (DATABASE_URL)");
    const ctx: Context = {
      db: prismaClient(deps, PrismaClient),
      pool: deps.pool,
      config,
      log,
      now,
      credentials,
      lessons: lessonsReader(deps.addrs.memory, deps.callKeys.signer("memory")),
      artifacts: new ArtifactStore(signing.key),
      blobs: await createBlobStore({ config, pool: deps.pool, schema: "content", now, log }),
      pdf,
      guard: new SsrfGuard({
        allowLoopback: config.CONTENT_ALLOW_LOOPBACK,
        maxBytes: 5 * 1024 * 1024,
        timeoutMs: 10_000,
        log,
      }),
      skills,
    };
    const sweep = setInterval(() => {
      asSystem(() => sweepArtifacts(ctx)).catch((err) => log.warn({ err: String(err) }, "artifact sweep failed"));
      // As long as any call (or its replay) waits on a send: twice the SMTP timeout, or five rounds
      // of requests to the SMS provider (50 recipients, ten at a time).
      const waitMs = Math.max(config.CONTENT_SMTP_TIMEOUT_MS * 2, config.TWILIO_TIMEOUT_MS * 5);
      asSystem(() => closeInterruptedSends(ctx, waitMs + 60_000))
        .then((n) => n > 0 && log.warn({ closed: n }, "sends interrupted by a crash closed as failed"))
        .catch((err) => log.warn({ err: String(err) }, "interrupted-send sweep failed"));
    }, SWEEP_MS);
    sweep.unref();

    if (signing.random)
      log.warn("CONTENT_SIGNING_KEY is unset: download links are signed with a random key and stop working on restart");
    log.info(
      {
        blobs: ctx.blobs.driver,
        email: config.CONTENT_SMTP_URL
          ? "smtp (CONTENT_SMTP_URL) unless connections answers"
          : "outbox unless connections answers",
        sms: config.TWILIO_ACCOUNT_SID
          ? "twilio (TWILIO_ACCOUNT_SID) unless connections answers"
          : "501 unless connections answers",
      },
      "content configured",
    );
    if (!config.CONTENT_SMTP_URL)
      log.warn(
        "CONTENT_SMTP_URL is unset: without an email connection or platform account, messages go to the OUTBOX (stored in content.deliveries with status captured, never delivered)",
      );
    const built = ctx;
    return {
      ...built,
      stop: async () => {
        clearInterval(sweep);
        await pdf.close();
        credentials.close();
        built.lessons.close();
        await built.db.$disconnect();
      },
    };
  },
  grpcServices: (ctx) => [ingressService(ctx.log, (req) => filesIngress(ctx, req))],
  // Without a Twilio account of its own, channel sms answers 501 unless connections has one (sms.ts).
  needs: (ctx) => smsNeeds(ctx.config),
  close: async (ctx) => ctx.stop(),
});
