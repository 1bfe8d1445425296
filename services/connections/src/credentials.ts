/**
 * @module connections/credentials
 * A connection's tokens in and out of their sealed columns (src/crypto.ts): each write seals the
 * access and refresh tokens under a new random data key bound to the connection's tenant and id,
 * wraps that key with the current master key, and stores the key version. Reading unseals with
 * the same binding, so a row's ciphertext copied anywhere else does not open.
 */
import { openRecord, sealRecord } from "./crypto.ts";
import type { Context } from "./context.ts";
import type { Connection } from "./db.ts";

export interface Tokens {
  access: string;
  refresh: string | null;
}

/** The columns that hold a connection's sealed tokens. */
export function sealTokens(
  ctx: Pick<Context, "keys">,
  connection: Pick<Connection, "tenant" | "id">,
  tokens: Tokens,
): {
  accessTokenEnc: Uint8Array<ArrayBuffer>;
  refreshTokenEnc: Uint8Array<ArrayBuffer> | null;
  dataKeyEnc: Uint8Array<ArrayBuffer>;
  keyVersion: number;
} {
  const sealed = sealRecord(ctx.keys, connection, { access: tokens.access, refresh: tokens.refresh });
  return {
    accessTokenEnc: new Uint8Array(sealed.values.access as Buffer),
    refreshTokenEnc: sealed.values.refresh ? new Uint8Array(sealed.values.refresh) : null,
    dataKeyEnc: new Uint8Array(sealed.wrappedKey),
    keyVersion: sealed.keyVersion,
  };
}

/** The columns cleared when tokens are dropped (revocation, needs_reauth). */
export const NO_TOKENS = {
  accessTokenEnc: null,
  refreshTokenEnc: null,
  dataKeyEnc: null,
  keyVersion: null,
  tokenType: null,
} as const;

/** The connection's tokens, or null when it holds none. */
export function openTokens(ctx: Pick<Context, "keys">, row: Connection): Tokens | null {
  if (!row.accessTokenEnc || !row.dataKeyEnc || row.keyVersion === null) return null;
  const values = openRecord(ctx.keys, row, row.dataKeyEnc, row.keyVersion, {
    access: row.accessTokenEnc,
    refresh: row.refreshTokenEnc,
  });
  return { access: values.access as string, refresh: values.refresh };
}
