/**
 * @module connections/refresh
 * Access tokens are refreshed ahead of expiry (a sweep) and on use (ResolveCredential), without
 * races, which are what log users out when a provider rotates refresh tokens: the second request
 * with a rotated-away refresh token gets `invalid_grant`, and strict providers then revoke the whole
 * grant.
 *
 * - One refresh at a time per connection: within a process, concurrent uses share one refresh
 *   (`ctx.refreshing`); across replicas, the refresh runs in a transaction holding the connection's
 *   row lock (`SELECT … FOR UPDATE`). Whoever waited on the lock re-reads the row and finds the new
 *   token, so it does not refresh again.
 * - The new access token and the rotated refresh token (or the old one, when the provider does not
 *   rotate) are written in that same transaction, with a version check (`version` must still be
 *   what was read under the lock), so a token the provider issued is never lost.
 * - `invalid_grant` moves the connection to `needs_reauth` (tokens dropped, event published): the
 *   provider will not honour the grant again; consent must be given again.
 * - A provider that is down changes nothing: the use gets the still-valid token if there is one,
 *   else the failure; the sweep tries again next round.
 *
 * "Due" means: the token expires within CONNECTIONS_REFRESH_AHEAD_SECONDS, or within half its
 * lifetime if that is shorter (a 60-second token is not refreshed on every use).
 */
import { asSystem, GantryError } from "@gantry/kit";
import type { Context } from "./context.ts";
import { NO_TOKENS, openTokens, sealTokens } from "./credentials.ts";
import { SCHEMA, type Connection } from "./db.ts";
import { enqueue, recordEvent } from "./events.ts";
import { ProviderRefusal } from "./oauth.ts";
import { sweepAbandoned } from "./sessions.ts";

export type RefreshTrigger = "use" | "sweep" | "forced";

/** Whether a connected connection's access token should be refreshed now. */
export function refreshDue(row: Connection, now: number, aheadSeconds: number): boolean {
  if (row.status !== "connected" || !row.credentialExpiresAt) return false;
  const expires = row.credentialExpiresAt.getTime();
  const issued = row.credentialIssuedAt?.getTime() ?? expires;
  const ahead = Math.min(aheadSeconds * 1000, Math.max(0, expires - issued) / 2);
  return expires - now <= ahead;
}

interface Outcome {
  row: Connection;
  event?: "refreshed" | "needs_reauth";
  detail?: Record<string, unknown>;
}

/**
 * Refreshes the connection if it is due (or `forced`), once even under concurrent calls, and returns
 * the row as it is afterwards. Throws upstream_failed / timeout when the provider cannot be reached.
 */
export function refreshConnection(
  ctx: Context,
  id: string,
  trigger: RefreshTrigger,
  requestId?: string,
): Promise<Connection> {
  const running = ctx.refreshing.get(id);
  if (running) return running;
  const started = refreshLocked(ctx, id, trigger, requestId).finally(() => ctx.refreshing.delete(id));
  ctx.refreshing.set(id, started);
  return started;
}

async function refreshLocked(
  ctx: Context,
  id: string,
  trigger: RefreshTrigger,
  requestId: string | undefined,
): Promise<Connection> {
  const timeout = ctx.config.CONNECTIONS_PROVIDER_TIMEOUT_MS * 2 + 5_000;
  const outcome = await ctx.db.$transaction(
    async (tx): Promise<Outcome> => {
      // The row lock: a refresh elsewhere holds it until its new tokens are committed.
      await tx.$queryRawUnsafe(`SELECT 1 FROM "${SCHEMA}"."connections" WHERE id = $1 FOR UPDATE`, id);
      // Read after the lock, so this is the latest committed row (READ COMMITTED: a new snapshot).
      const row = await tx.connection.findFirst({ where: { id } });
      if (!row) throw new GantryError("not_found", `No connection with id ${id}.`);
      const nowMs = ctx.now();
      const due = refreshDue(row, nowMs, ctx.config.CONNECTIONS_REFRESH_AHEAD_SECONDS);
      if (row.status !== "connected" || (!due && trigger !== "forced")) return { row };
      const provider = ctx.providers.get(row.service);
      const tokens = openTokens(ctx, row);
      const now = new Date(nowMs);
      if (!tokens?.refresh || !provider) {
        // Nothing to refresh with: usable until it expires, then consent is needed again.
        if (row.credentialExpiresAt && row.credentialExpiresAt.getTime() > nowMs) return { row };
        const reason = provider ? "access token expired; no refresh token was issued" : "provider no longer configured";
        return needsReauth(tx, row, now, reason, requestId);
      }
      let granted: Awaited<ReturnType<typeof provider.refresh>>;
      try {
        granted = await provider.refresh(tokens.refresh);
      } catch (err) {
        if (err instanceof ProviderRefusal && err.error === "invalid_grant")
          return needsReauth(tx, row, now, `invalid_grant${err.description ? `: ${err.description}` : ""}`, requestId);
        throw err;
      }
      const rotated = Boolean(granted.refreshToken && granted.refreshToken !== tokens.refresh);
      const updated = await tx.connection.updateMany({
        where: { id: row.id, version: row.version },
        data: {
          ...sealTokens(ctx, row, { access: granted.accessToken, refresh: granted.refreshToken ?? tokens.refresh }),
          tokenType: granted.tokenType,
          scopes: granted.scopes ?? row.scopes,
          credentialExpiresAt: granted.expiresIn ? new Date(nowMs + granted.expiresIn * 1000) : null,
          credentialIssuedAt: now,
          lastRefreshedAt: now,
          statusReason: null,
          updatedAt: now,
          version: { increment: 1 },
        },
      });
      // Cannot happen under the row lock; if it ever does, the rollback keeps the stored tokens.
      if (updated.count !== 1) throw new GantryError("conflict", `Connection ${id} changed during its refresh.`);
      const detail = { trigger, rotated };
      await recordEvent(tx, { connection: row, type: "refreshed", at: now, requestId, detail });
      const refreshed = (await tx.connection.findFirst({ where: { id } })) as Connection;
      await enqueue(tx, "refreshed", refreshed, { requestId, detail, at: now });
      return { row: refreshed, event: "refreshed", detail };
    },
    { timeout, maxWait: 10_000 },
  );
  if (outcome.event) {
    await ctx.outbox.flush();
    ctx.log.info(
      { connectionId: id, tenant: outcome.row.tenant, event: outcome.event, ...outcome.detail },
      outcome.event === "refreshed" ? "access token refreshed" : "connection needs consent again",
    );
  }
  return outcome.row;
}

async function needsReauth(
  tx: Parameters<Parameters<Context["db"]["$transaction"]>[0]>[0],
  row: Connection,
  now: Date,
  reason: string,
  requestId: string | undefined,
): Promise<Outcome> {
  await tx.connection.update({
    where: { id: row.id },
    data: {
      ...NO_TOKENS,
      status: "needs_reauth",
      statusReason: reason,
      credentialExpiresAt: null,
      credentialIssuedAt: null,
      updatedAt: now,
      version: { increment: 1 },
    },
  });
  const detail = { reason };
  await recordEvent(tx, { connection: row, type: "needs_reauth", at: now, requestId, detail });
  const changed = (await tx.connection.findFirst({ where: { id: row.id } })) as Connection;
  await enqueue(tx, "needs_reauth", changed, { requestId, detail, at: now });
  return { row: changed, event: "needs_reauth", detail };
}

/**
 * On use: the row with a token that is not about to expire. A refresh that fails for a reason other
 * than the provider's refusal leaves the still-valid token in use; an expired one is then an error.
 */
export async function freshForUse(ctx: Context, row: Connection, requestId?: string): Promise<Connection> {
  const nowMs = ctx.now();
  if (!refreshDue(row, nowMs, ctx.config.CONNECTIONS_REFRESH_AHEAD_SECONDS)) return row;
  try {
    return await refreshConnection(ctx, row.id, "use", requestId);
  } catch (err) {
    if (row.credentialExpiresAt && row.credentialExpiresAt.getTime() > nowMs) {
      ctx.log.warn(
        { connectionId: row.id, err: String(err) },
        "refresh on use failed; the current token is still valid",
      );
      return row;
    }
    throw err;
  }
}

/**
 * Refreshes, every `everyMs`, the connections whose tokens are due, then cleans up abandoned consents
 * (src/sessions.ts). Runs in system scope.
 */
export function startRefreshSweep(ctx: Context, everyMs: number): { stop: () => Promise<void> } {
  if (everyMs <= 0) return { stop: async () => {} };
  let running: Promise<void> | undefined;
  let stopped = false;
  const round = async () => {
    const aheadMs = ctx.config.CONNECTIONS_REFRESH_AHEAD_SECONDS * 1000;
    const candidates = await ctx.db.connection.findMany({
      where: {
        status: "connected",
        refreshTokenEnc: { not: null },
        credentialExpiresAt: { lte: new Date(ctx.now() + aheadMs) },
      },
      orderBy: { credentialExpiresAt: "asc" },
      take: 200,
    });
    for (const row of candidates) {
      if (stopped) return;
      if (!refreshDue(row, ctx.now(), ctx.config.CONNECTIONS_REFRESH_AHEAD_SECONDS)) continue;
      await refreshConnection(ctx, row.id, "sweep").catch((err) =>
        ctx.log.warn({ connectionId: row.id, err: String(err) }, "refresh ahead of expiry failed; retried next round"),
      );
    }
    if (!stopped)
      await sweepAbandoned(ctx).catch((err) =>
        ctx.log.warn({ err: String(err) }, "cleaning up abandoned consents failed; retried next round"),
      );
  };
  const timer = setInterval(() => {
    if (running) return;
    running = asSystem(round)
      .catch((err) => ctx.log.warn({ err: String(err) }, "refresh sweep failed"))
      .finally(() => {
        running = undefined;
      });
  }, everyMs);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
