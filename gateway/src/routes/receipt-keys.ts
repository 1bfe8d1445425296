/**
 * @module gateway/routes/receipt-keys
 * `GET /.well-known/jwks.json`: the Ed25519 public keys (RFC 7517 JWKS, RFC 8037 OKP keys) that sign
 * trust receipts and receipt-log checkpoints, current and previous, from the trust service. Public
 * and unauthenticated like any JWKS: a verifier holding only a receipt must be able to fetch it.
 */
import type { Request, Response } from "express";
import { GantryError } from "@gantry/kit";
import type { GatewayDeps } from "../deps.ts";
import { sendError } from "../respond.ts";

export function receiptKeysRoute(deps: GatewayDeps) {
  return async (_req: Request, res: Response) => {
    try {
      const json = await deps.permits.jwksJson();
      res.setHeader("Cache-Control", "public, max-age=300");
      res.type("application/jwk-set+json").send(json);
    } catch (err) {
      sendError(res, err instanceof GantryError ? err : new GantryError("internal", "internal error", { cause: err }));
    }
  };
}
