/**
 * @module kit/call-auth
 * Who is calling, inside the cluster (SECURITY.md, issue 27 item 4). The call context (tenant,
 * admin, scopes) travels over gRPC, and a service believes it; so every call carries a token that
 * only a process holding the caller→callee key can make, and every service checks it before any
 * handler runs (kit/grpc-server, through `RpcServer`'s `auth`). The gateway signs as `gateway`;
 * a service calling another (payments → connections) signs as itself, so the callee knows who asks.
 *
 * **The token** is the `gantry-call-auth` metadata of a call (a header on a plain call, the Call's
 * `metadata` on the Calls stream): `<caller>.<expiry ms>.<mac>`, where `mac` is base64url of
 * HMAC-SHA256 under the pair key over `gantry-call-v1|<caller>|<callee>|<method path>|<expiry>|`
 * followed by the request message's bytes exactly as sent. Those bytes hold the whole call context
 * and the ability id (and the input): signing them as they are needs no canonical encoding, and a
 * token cannot be lifted onto another context, ability, input, method or callee. It expires with
 * the call's deadline, at most {@link MAX_TOKEN_TTL_MS} ahead. HMAC, not signatures: an Ed25519 verify
 * costs far more, on every hop (docs/benchmarks.md, *Call authentication*).
 *
 * **Keys.** One secret per caller→callee pair, all derived from one master secret:
 *
 *     key(C → S) = hex(sha256(utf8(GANTRY_CALL_KEY + "|" + C + "|" + S)))
 *
 * (the master exactly as written in the variable; C is `gateway` or a service name, S a service
 * name; the HMAC key is the 32 bytes the hex spells). It is SHA-256 of a string so a Helm template
 * can compute it: `sha256sum (printf "%s|%s|%s" $master $caller $service)`. A process gets either
 *
 * - `GANTRY_CALL_KEY`: the master (base64 or hex of at least 32 random bytes); the process derives
 *   the pair keys it needs. `npm start` and the tests do this.
 * - `GANTRY_CALL_KEYS_IN` and `GANTRY_CALL_KEYS_OUT`: JSON objects of derived keys (hex),
 *   `{"<caller>": key(caller → this service)}` for every process that calls this one (the gateway,
 *   and the services of {@link INTERNAL_CALLS}), and `{"<service>": key(this → service)}` for every
 *   service this process calls (the gateway: all of them). A pod then holds only its own pairs.
 *
 * A process without the keys it needs does not start, unless `GANTRY_CALL_AUTH=off`, which turns
 * the check off (for a local experiment only: any process that reaches a port may then claim any
 * tenant). Health checks (`grpc.health.v1`) stay open for probes.
 *
 * **Who may call what**: the gateway every method but the typed RPCs only services call
 * (ResolveCredential); a service what {@link INTERNAL_CALLS} (kit/topology) lists for it. A
 * verified caller outside that is refused as well.
 *
 * A refusal is gRPC UNAUTHENTICATED without a Gantry error trailer; the kit's client turns it into
 * `internal` (kit/grpc-client `statusError`), so an API user sees a sanitized 500, never a 401 for a
 * key that is fine: a refusal here is a deployment fault.
 */
import { createHash, hash, timingSafeEqual } from "node:crypto";
import { ConfigError, defineEnv } from "./config.ts";
import { AREA_SERVICES, type AreaService, INTERNAL_CALLS } from "./topology.ts";

/** The metadata entry a call's token travels in. */
export const CALL_AUTH_HEADER = "gantry-call-auth";
/** No token is good for longer than this, whatever the call's deadline. */
export const MAX_TOKEN_TTL_MS = 5 * 60_000;
/** Clocks of two pods may differ by this much. */
export const CLOCK_LEEWAY_MS = 30_000;

/** Who signs a call: the gateway or an area service. */
export type Caller = "gateway" | AreaService;

export const CALL_AUTH_ENV = defineEnv({
  GANTRY_CALL_KEY: {
    type: "string",
    description:
      "master secret of internal call authentication (base64 or hex, at least 32 random bytes); the process derives its caller→service keys from it (SECURITY.md, kit/src/call-auth.ts)",
  },
  GANTRY_CALL_KEYS_IN: {
    type: "string",
    description:
      'instead of GANTRY_CALL_KEY: JSON {"<caller>": "<hex key>"} of the processes allowed to call this service, each key hex(sha256(master|caller|service))',
  },
  GANTRY_CALL_KEYS_OUT: {
    type: "string",
    description:
      'instead of GANTRY_CALL_KEY: JSON {"<service>": "<hex key>"} of the services this process calls, each key hex(sha256(master|this|service))',
  },
  GANTRY_CALL_AUTH: {
    type: "string",
    enum: ["on", "off"],
    default: "on",
    description:
      "`off` lets a service start without call keys and take unsigned calls: local experiments only, never a shared network",
  },
});

/** The key `caller` signs its calls to `callee` with, as hex (what GANTRY_CALL_KEYS_* hold). */
export function deriveCallKey(master: string, caller: Caller, callee: AreaService): string {
  return createHash("sha256").update(`${master}|${caller}|${callee}`, "utf8").digest("hex");
}

/** Makes the token of one call. */
export interface CallSigner {
  readonly caller: Caller;
  readonly callee: AreaService;
  /** The `gantry-call-auth` value for a call of `path` with this request message, good until `expiry` (epoch ms). */
  sign(path: string, message: Uint8Array, expiry: number): string;
}

/** What `authenticate` concluded: the verified caller, or why the call is refused. */
export type CallVerdict = { caller: Caller } | { refused: string };

/** Checks calls arriving at one service. */
export interface CallVerifier {
  readonly callee: AreaService;
  authenticate(path: string, message: Uint8Array, metadata: Readonly<Record<string, string>>): CallVerdict;
}

/**
 * A pair key as HMAC-SHA256 (RFC 2104) uses it: the key XORed with ipad and with opad, each one
 * SHA-256 block, made once. Keys over a block are hashed first, as RFC 2104 says; ours are 32 bytes.
 */
interface HmacKey {
  readonly ipad: Buffer;
  readonly opad: Buffer;
}

const BLOCK = 64;

function hmacKey(bytes: Buffer): HmacKey {
  const key = bytes.length > BLOCK ? hash("sha256", bytes, "buffer") : bytes;
  const ipad = Buffer.alloc(BLOCK, 0x36);
  const opad = Buffer.alloc(BLOCK, 0x5c);
  for (let i = 0; i < key.length; i++) {
    ipad[i] ^= key[i];
    opad[i] ^= key[i];
  }
  return { ipad, opad };
}

/**
 * HMAC-SHA256 as two one-shot `crypto.hash` calls over the padded key and the data, byte for byte
 * what `createHmac` gives (call-auth.test.ts compares them). Alone in a loop both cost about the
 * same; inside the transport, an `Hmac` object per call (a native handle each, even over a
 * KeyObject) measured 1–7 µs more a call on each side (kit/README.md, *What a call costs*).
 */
function mac(key: HmacKey, caller: string, callee: string, path: string, expiry: number, message: Uint8Array): Buffer {
  const head = `gantry-call-v1|${caller}|${callee}|${path}|${expiry}|`;
  const headBytes = Buffer.byteLength(head);
  const inner = Buffer.allocUnsafe(BLOCK + headBytes + message.length);
  inner.set(key.ipad, 0);
  inner.write(head, BLOCK, "utf8");
  inner.set(message, BLOCK + headBytes);
  const outer = Buffer.allocUnsafe(BLOCK + 32);
  outer.set(key.opad, 0);
  outer.set(hash("sha256", inner, "buffer"), BLOCK);
  return hash("sha256", outer, "buffer");
}

export function callSigner(caller: Caller, callee: AreaService, bytes: Buffer): CallSigner {
  const key = hmacKey(bytes);
  return {
    caller,
    callee,
    sign: (path, message, expiry) =>
      `${caller}.${expiry}.${mac(key, caller, callee, path, expiry, message).toString("base64url")}`,
  };
}

/**
 * Typed RPCs only services call: not the gateway's either. ResolveCredential answers a tenant's
 * decrypted token, which no ability the gateway runs needs to see.
 */
const SERVICE_ONLY = new Set(INTERNAL_CALLS.filter((c) => !c.abilities).map((c) => c.method));

/** Whether `caller` may call `path` on `callee` at all (the gateway: every method but the services' own). */
export function mayCall(caller: Caller, callee: AreaService, path: string): boolean {
  if (caller === "gateway") return !SERVICE_ONLY.has(path);
  return INTERNAL_CALLS.some((c) => c.caller === caller && c.callee === callee && c.method === path);
}

/** Whether `caller` may run `ability` on `callee` through `AbilityService/Execute`. */
export function mayExecute(caller: Caller, callee: AreaService, ability: string): boolean {
  if (caller === "gateway") return true;
  return INTERNAL_CALLS.some(
    (c) =>
      c.caller === caller && c.callee === callee && (c.abilities as readonly string[] | undefined)?.includes(ability),
  );
}

export function callVerifier(callee: AreaService, bytes: ReadonlyMap<string, Buffer>, now = Date.now): CallVerifier {
  const keys = new Map([...bytes].map(([caller, key]) => [caller, hmacKey(key)]));
  return {
    callee,
    authenticate: (path, message, metadata) => {
      const token = metadata[CALL_AUTH_HEADER];
      if (!token) return { refused: `no ${CALL_AUTH_HEADER} token` };
      const [caller, expiryText, given, extra] = token.split(".");
      if (extra !== undefined || !caller || !expiryText || !given || !/^\d{1,15}$/.test(expiryText))
        return { refused: "malformed token" };
      const key = keys.get(caller);
      if (!key) return { refused: `no key for caller '${caller}' on ${callee}` };
      const expiry = Number(expiryText);
      const at = now();
      if (expiry < at - CLOCK_LEEWAY_MS) return { refused: "token expired" };
      if (expiry > at + MAX_TOKEN_TTL_MS + CLOCK_LEEWAY_MS) return { refused: "token lives too long" };
      const expected = mac(key, caller, callee, path, expiry, message);
      const actual = Buffer.from(given, "base64url");
      if (actual.length !== expected.length || !timingSafeEqual(actual, expected))
        return { refused: "token does not match the call" };
      if (!mayCall(caller as Caller, callee, path)) return { refused: `${caller} may not call ${path} on ${callee}` };
      return { caller: caller as Caller };
    },
  };
}

/** The processes that may call `service`: the gateway and the services of INTERNAL_CALLS that do. */
export function callersOf(service: AreaService): Caller[] {
  return ["gateway", ...new Set(INTERNAL_CALLS.filter((c) => c.callee === service).map((c) => c.caller))];
}

/** The services `caller` calls: every one for the gateway, those of INTERNAL_CALLS for a service. */
export function calleesOf(caller: Caller): AreaService[] {
  if (caller === "gateway") return AREA_SERVICES.map((s) => s.name);
  return [...new Set(INTERNAL_CALLS.filter((c) => c.caller === caller).map((c) => c.callee))];
}

/** One process's call keys: what it verifies incoming calls with, and signs its own calls with. */
export interface CallKeys {
  readonly self: Caller;
  /** Null when GANTRY_CALL_AUTH=off: calls are taken unsigned. */
  readonly verifier: CallVerifier | null;
  /** The signer of calls to `callee`; undefined when this process holds no key for it (auth off). */
  signer(callee: AreaService): CallSigner | undefined;
}

/** A parsed configuration or a raw environment: the variables of CALL_AUTH_ENV, as strings when set. */
type CallAuthConfig = Readonly<Record<string, unknown>>;

function setting(config: CallAuthConfig, name: keyof typeof CALL_AUTH_ENV): string | undefined {
  const value = config[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

const KNOWN_NAMES = new Set<string>(["gateway", ...AREA_SERVICES.map((s) => s.name)]);

function masterStrength(master: string): number {
  if (/^[0-9a-fA-F]+$/.test(master) && master.length % 2 === 0) return master.length / 2;
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(master)) return Buffer.from(master, "base64").length;
  return 0;
}

function parseKeys(variable: string, raw: string | undefined): Map<string, Buffer> {
  if (raw === undefined) return new Map();
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(`${variable} is not JSON (expected {"<name>": "<64 hex digits>"})`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed))
    throw new ConfigError(`${variable} must be a JSON object {"<name>": "<64 hex digits>"}`);
  const out = new Map<string, Buffer>();
  for (const [name, value] of Object.entries(parsed)) {
    if (!KNOWN_NAMES.has(name)) throw new ConfigError(`${variable} names '${name}', which is no Gantry process`);
    if (typeof value !== "string" || !/^[0-9a-fA-F]{64}$/.test(value))
      throw new ConfigError(`${variable}.${name} must be 64 hex digits (hex(sha256(master|caller|service)))`);
    out.set(name, Buffer.from(value, "hex"));
  }
  return out;
}

/**
 * The call keys of process `self` from its configuration. Throws a ConfigError naming the variable
 * when a key it needs is missing (unless GANTRY_CALL_AUTH=off).
 */
export function loadCallKeys(self: Caller, config: CallAuthConfig): CallKeys {
  const off = setting(config, "GANTRY_CALL_AUTH") === "off";
  const callers = self === "gateway" ? [] : callersOf(self);
  const callees = calleesOf(self);
  let incoming: Map<string, Buffer>;
  let outgoing: Map<string, Buffer>;
  const master = setting(config, "GANTRY_CALL_KEY");
  if (master !== undefined) {
    if (masterStrength(master) < 32)
      throw new ConfigError(`GANTRY_CALL_KEY must be base64 or hex of at least 32 random bytes`);
    incoming = new Map(callers.map((c) => [c, Buffer.from(deriveCallKey(master, c, self as AreaService), "hex")]));
    outgoing = new Map(callees.map((s) => [s, Buffer.from(deriveCallKey(master, self, s), "hex")]));
  } else {
    incoming = parseKeys("GANTRY_CALL_KEYS_IN", setting(config, "GANTRY_CALL_KEYS_IN"));
    outgoing = parseKeys("GANTRY_CALL_KEYS_OUT", setting(config, "GANTRY_CALL_KEYS_OUT"));
    if (!off) {
      const missingIn = callers.filter((c) => !incoming.has(c));
      const missingOut = callees.filter((s) => !outgoing.has(s));
      if (missingIn.length || missingOut.length) {
        const what = [
          missingIn.length ? `GANTRY_CALL_KEYS_IN lacks ${missingIn.join(", ")}` : "",
          missingOut.length ? `GANTRY_CALL_KEYS_OUT lacks ${missingOut.join(", ")}` : "",
        ].filter(Boolean);
        throw new ConfigError(
          `${self}: internal calls are authenticated and this process has no keys for them: set GANTRY_CALL_KEY ` +
            `(the master secret) or GANTRY_CALL_KEYS_IN/GANTRY_CALL_KEYS_OUT (${what.join("; ")}). ` +
            `GANTRY_CALL_AUTH=off turns the check off, for local experiments only.`,
        );
      }
    }
  }
  const signers = new Map(
    [...outgoing].map(([callee, key]) => [callee, callSigner(self, callee as AreaService, key)] as const),
  );
  return {
    self,
    verifier: off || self === "gateway" ? null : callVerifier(self, incoming),
    signer: (callee) => signers.get(callee),
  };
}

/** When a call's token stops being good: at its deadline, never more than MAX_TOKEN_TTL_MS ahead. */
export function tokenExpiry(deadlineMs: number, now = Date.now()): number {
  return now + Math.min(deadlineMs, MAX_TOKEN_TTL_MS);
}
