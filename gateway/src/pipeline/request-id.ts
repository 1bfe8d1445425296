/**
 * @module gateway/pipeline/request-id
 * Every response carries `X-Request-Id`. The id is always minted here (never taken from the client)
 * because it is also the audit record's primary key and the receipt trust claims cite.
 */
import type { NextFunction, Request, Response } from "express";
import { randomBase62 } from "@gantry/kit";

export function newRequestId(): string {
  return `req_${randomBase62(22)}`;
}

export function requestId(_req: Request, res: Response, next: NextFunction): void {
  const id = newRequestId();
  res.locals.requestId = id;
  res.locals.started = performance.now();
  res.setHeader("X-Request-Id", id);
  next();
}
