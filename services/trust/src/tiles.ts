/**
 * @module trust/tiles
 * The public read-only view of a tenant's receipt log as C2SP tlog-tiles (c2sp.org/tlog-tiles):
 * `checkpoint` (the signed note), `tile/<L>/<N>[.p/<W>]` (the hashes of the level-8L subtrees
 * N·256 … N·256+W−1: the `log_nodes` rows of that level, or for level 0 the receipts' leaf hashes) and
 * `tile/entries/<N>[.p/<W>]` (the receipts' DSSE envelopes as canonical JSON, each after its
 * big-endian uint16 length: the leaf data whose RFC 6962 leaf hash tile level 0 holds). Any
 * tlog-tiles client (Go's golang.org/x/mod/sumdb/tlog `TileHashReader`) proves inclusion and
 * consistency from these alone.
 *
 * A log is named by its public id (`logs.log_id`, random, shown in trust.status), never by the
 * tenant: the URLs need no key, and an id that cannot be guessed keeps them from telling anyone
 * which tenants exist. Whoever holds the id reads the whole log, tenant name included (the
 * checkpoint's origin line and each receipt carry it).
 */
import { asSystem, canonicalJson, GantryError, preparedQuery, withTenant } from "@gantry/kit";
import { currentCheckpoint } from "./checkpoints.ts";
import type { Context } from "./context.ts";

const TILE_HEIGHT = 8;
const TILE_WIDTH = 2 ** TILE_HEIGHT;

const tenantOfLog = preparedQuery<{ tenant: string }, [logId: string]>(
  "trust.tenant_of_log",
  "SELECT tenant FROM trust.logs WHERE log_id = $1",
);
const tileHashes = preparedQuery<{ hash: Buffer }, [tenant: string, level: number, from: number, to: number]>(
  "trust.tile_hashes",
  "SELECT hash FROM trust.log_nodes WHERE tenant = $1 AND level = $2 AND idx >= $3 AND idx < $4 ORDER BY idx",
);
const leafHashes = preparedQuery<{ hash: Buffer }, [tenant: string, from: number, to: number]>(
  "trust.tile_leaves",
  "SELECT decode(leaf_hash, 'hex') AS hash FROM trust.receipts WHERE tenant = $1 AND log_index >= $2 AND log_index < $3 ORDER BY log_index",
);
const entryEnvelopes = preparedQuery<{ envelope: unknown }, [tenant: string, from: number, to: number]>(
  "trust.entry_envelopes",
  "SELECT envelope FROM trust.receipts WHERE tenant = $1 AND log_index >= $2 AND log_index < $3 ORDER BY log_index",
);

export interface LogResource {
  body: Buffer;
  contentType: string;
  immutable: boolean;
}

/** A tile's address: `level` null for the entry bundles. */
interface TileRef {
  level: number | null;
  index: number;
  width: number;
}

function notFound(what: string, code: string, path: string): GantryError {
  return new GantryError("not_found", `No ${what}.`, {
    reason:
      "Read the log's id from trust.status (`log.logId`), fetch its checkpoint, then only the tiles (c2sp.org/tlog-tiles) that checkpoint's size covers.",
    details: [{ path, message: `No ${what}`, code }],
  });
}

/** The tile index as tlog-tiles writes it: 3-digit groups, all but the last prefixed `x`. */
export function encodeTileIndex(n: number): string {
  const groups: string[] = [];
  let rest = n;
  do {
    groups.unshift(String(rest % 1000).padStart(3, "0"));
    rest = Math.floor(rest / 1000);
  } while (rest > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join("/");
}

const isDigits = (s: string) => s.length > 0 && [...s].every((c) => c >= "0" && c <= "9");

/** `tile/<L>/<N>[.p/<W>]` or `tile/entries/<N>[.p/<W>]`, in its one canonical spelling; else null. */
export function parseTilePath(path: string): TileRef | null {
  const parts = path.split("/");
  if (parts[0] !== "tile" || parts.length < 3) return null;
  let groups = parts.slice(2);
  let width = TILE_WIDTH;
  const beforeLast = groups.at(-2);
  if (beforeLast?.endsWith(".p")) {
    const w = groups.at(-1)!;
    if (!isDigits(w) || w.startsWith("0") || Number(w) >= TILE_WIDTH) return null;
    width = Number(w);
    groups = [...groups.slice(0, -2), beforeLast.slice(0, -2)];
  }
  const digits = groups.map((g, i) => (i < groups.length - 1 ? (g.startsWith("x") ? g.slice(1) : "") : g));
  if (digits.some((d) => d.length !== 3 || !isDigits(d))) return null;
  const index = Number(digits.join(""));
  if (!Number.isSafeInteger(index) || encodeTileIndex(index) !== groups.join("/")) return null;
  if (parts[1] === "entries") return { level: null, index, width };
  if (!isDigits(parts[1]!) || (parts[1]!.length > 1 && parts[1]!.startsWith("0"))) return null;
  const level = Number(parts[1]);
  // Indexes are 32-bit: no log has a node above level 30.
  return level * TILE_HEIGHT <= 30 ? { level, index, width } : null;
}

function lengthPrefixed(data: Buffer): Buffer {
  const len = Buffer.alloc(2);
  len.writeUInt16BE(data.length);
  return Buffer.concat([len, data]);
}

async function tileOf(ctx: Context, tenant: string, tile: TileRef): Promise<Buffer | null> {
  const from = tile.index * TILE_WIDTH;
  const to = from + tile.width;
  if (tile.level === null) {
    const rows = await entryEnvelopes(ctx.pool, tenant, from, to);
    return rows.length === tile.width
      ? Buffer.concat(rows.map((r) => lengthPrefixed(Buffer.from(canonicalJson(r.envelope)))))
      : null;
  }
  const rows =
    tile.level === 0
      ? await leafHashes(ctx.pool, tenant, from, to)
      : await tileHashes(ctx.pool, tenant, tile.level * TILE_HEIGHT, from, to);
  return rows.length === tile.width ? Buffer.concat(rows.map((r) => r.hash)) : null;
}

/** One resource of the log `logId`, by its path under the log; 404 naming what is missing. */
export async function logResource(ctx: Context, logId: string, path: string): Promise<LogResource> {
  const [log] = await asSystem(() => tenantOfLog(ctx.pool, logId));
  if (!log) throw notFound(`receipt log has the id ${JSON.stringify(logId)}`, "log_not_found", "/logId");
  return withTenant(log.tenant, async () => {
    if (path === "checkpoint") {
      const { note } = await currentCheckpoint(ctx, log.tenant);
      return { body: Buffer.from(note), contentType: "text/plain; charset=utf-8", immutable: false };
    }
    const tile = parseTilePath(path);
    const body = tile && (await tileOf(ctx, log.tenant, tile));
    if (!body) throw notFound(`resource ${JSON.stringify(path)} in this log`, "log_resource_not_found", "/path");
    // A tile of a given width never changes (a wider one supersedes it under another path).
    return { body, contentType: "application/octet-stream", immutable: true };
  });
}
