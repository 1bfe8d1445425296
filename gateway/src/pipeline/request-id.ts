/**
 * @module gateway/pipeline/request-id
 * Every response carries `X-Request-Id`. The id is always minted here (never taken from the client)
 * because it is also the audit record's primary key and the receipt trust claims cite.
 */
import type { ServerResponse } from "node:http";
import type { NextFunction, Request, Response } from "express";
import { randomBase62 } from "@gantry/kit";

export function newRequestId(): string {
  return `req_${randomBase62(22)}`;
}

/** Starts a call's clock and names it on the response; the bare ability route calls it directly. */
export function startCall(res: ServerResponse): { requestId: string; started: number } {
  const call = { requestId: newRequestId(), started: performance.now() };
  res.setHeader("X-Request-Id", call.requestId);
  return call;
}

export function requestId(_req: Request, res: Response, next: NextFunction): void {
  const { requestId, started } = startCall(res);
  res.locals.requestId = requestId;
  res.locals.started = started;
  next();
}
