/**
 * @module gateway/routes/docs
 * `/docs`: the per-credential documentation (spec §1.5). A browser gets the HTML page (no key in
 * it; the user pastes one, see docs/page.ts). A client sending `Accept: text/markdown` and its key
 * gets the same content as Markdown for that key; `/docs.md` always answers Markdown.
 */
import { readFileSync } from "node:fs";
import type { Request, Response } from "express";
import { GantryError, routeNotFound } from "@gantry/kit";
import { sendError } from "../respond.ts";
import { abilitiesFor } from "../discovery/abilities.ts";
import { keyRateLimit } from "../pipeline/rate-limit.ts";
import { renderMarkdown } from "../docs/content.ts";
import { DOCS_CSP, renderPage } from "../docs/page.ts";
import { authorizeRead } from "./read-access.ts";
import { baseUrlOf } from "./base-url.ts";
import type { GatewayDeps } from "../deps.ts";

const ASSETS: Record<string, { type: string; body: string }> = {
  "docs.js": {
    type: "text/javascript; charset=utf-8",
    body: readFileSync(new URL("../docs/assets/docs.js", import.meta.url), "utf8"),
  },
  "docs.css": {
    type: "text/css; charset=utf-8",
    body: readFileSync(new URL("../docs/assets/docs.css", import.meta.url), "utf8"),
  },
};

function securityHeaders(res: Response): void {
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("X-Frame-Options", "DENY");
}

async function sendMarkdown(req: Request, res: Response, deps: GatewayDeps): Promise<void> {
  try {
    const key = await authorizeRead(req, res, deps);
    const abilities = await abilitiesFor(key.scopes, deps.liveStatus);
    const md = renderMarkdown({
      baseUrl: baseUrlOf(req, deps.config),
      version: deps.version,
      tenant: key.tenant,
      keyId: key.id,
      rateLimit: keyRateLimit(key, deps.defaultRateLimit),
      maxBodyBytes: deps.config.MAX_BODY_BYTES,
      abilities,
    });
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("Vary", "Accept, Authorization");
    securityHeaders(res);
    res.status(200).type("text/markdown; charset=utf-8").send(md);
  } catch (err) {
    sendError(res, err instanceof GantryError ? err : new GantryError("internal", "internal error", { cause: err }));
  }
}

export function docsRoute(deps: GatewayDeps) {
  return async (req: Request, res: Response) => {
    if (req.accepts(["text/html", "text/markdown"]) === "text/markdown") return sendMarkdown(req, res, deps);
    res.setHeader("Content-Security-Policy", DOCS_CSP);
    res.setHeader("Cache-Control", "no-cache");
    res.setHeader("Vary", "Accept");
    securityHeaders(res);
    res
      .status(200)
      .type("text/html; charset=utf-8")
      .send(
        renderPage({
          baseUrl: baseUrlOf(req, deps.config),
          version: deps.version,
          defaultRateLimit: deps.defaultRateLimit,
          maxBodyBytes: deps.config.MAX_BODY_BYTES,
        }),
      );
  };
}

export function docsMarkdownRoute(deps: GatewayDeps) {
  return (req: Request, res: Response) => sendMarkdown(req, res, deps);
}

export function docsAssetRoute() {
  return (req: Request, res: Response) => {
    const asset = Object.hasOwn(ASSETS, String(req.params.file)) ? ASSETS[String(req.params.file)] : undefined;
    if (!asset) return sendError(res, routeNotFound(`No docs asset ${JSON.stringify(req.params.file)}.`));
    res.setHeader("Cache-Control", "public, max-age=300");
    securityHeaders(res);
    res.status(200).type(asset.type).send(asset.body);
  };
}
