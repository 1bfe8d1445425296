/**
 * @module content/context
 * What every handler of the content service receives as `ctx`, built once by `init` in service.ts.
 */
import type pg from "pg";
import {
  abilityOf,
  type BlobStore,
  type Clock,
  type CredentialResolverClient,
  type Logger,
  type SsrfGuard,
} from "@gantry/kit";
import type { LessonsReaderClient } from "@gantry/kit/lessons-reader.ts";
import type { ArtifactStore } from "./artifacts.ts";
import type { ContentConfig } from "./config.ts";
import type { PrismaClient } from "./db.ts";
import type { PdfRenderer } from "./pdf.ts";
import type { Skill } from "./skills.ts";

export interface Context {
  db: PrismaClient;
  /** The tenant-scoped pool under `db`, for what Prisma does not do (advisory locks). */
  pool: pg.Pool;
  config: ContentConfig;
  log: Logger;
  now: Clock;
  /** The connections service's CredentialResolver: the tenant's `email` connection or the platform account. */
  credentials: CredentialResolverClient;
  /** The memory service's consolidated lessons: skill.load guardrails carries the tenant's critical ones. */
  lessons: LessonsReaderClient;
  /** How download links are signed. */
  artifacts: ArtifactStore;
  /** Every file the service keeps: documents, guides, help centres, tenant skills (kit/src/blob). */
  blobs: BlobStore;
  /** Headless Chromium, started on first use and shared. */
  pdf: PdfRenderer;
  /** The kit's SSRF guard, for the one user-given URL this service fetches (guide.list publicUrl). */
  guard: SsrfGuard;
  /** The built-in skills (services/content/skills), loaded and checked at start. */
  skills: Skill[];
}

/** `ability(id, run)`: declares the handler of one ability (one file per ability under abilities/). */
export const ability = abilityOf<Context>();
