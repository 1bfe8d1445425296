/**
 * @module client/client
 * `createClient`: calls abilities over `POST /v1/abilities/{id}` with the global `fetch` (or the one
 * given), retries 429 and 503 answers (and network failures of idempotent calls) within a bound,
 * makes up idempotency keys for create-like abilities, and turns error answers into `GantryApiError`.
 * Nothing here needs Node: only `fetch`, `AbortController`, `setTimeout` and `crypto.getRandomValues`.
 */
import { GantryApiError, GantryClientError, GantryConnectionError, codeForStatus, isErrorCode } from "./errors.ts";
import type { ErrorDetail } from "./errors.ts";
import { AREAS, CREATE_LIKE, READ_ONLY } from "./generated/runtime.ts";
import type { AbilityId, CallOptions, CallResult, ClientOptions, FetchLike, GantryClient } from "./types.ts";

const CREATE_LIKE_SET: ReadonlySet<string> = new Set(CREATE_LIKE);
const READ_ONLY_SET: ReadonlySet<string> = new Set(READ_ONLY);

export const DEFAULTS = Object.freeze({
  maxRetries: 2,
  maxRetryWaitMs: 30_000,
  timeoutMs: 60_000,
});

/** Whether the client makes up an idempotency key for `id` (its input schema has an `idempotencyKey`). */
export function isCreateLike(id: string): boolean {
  return CREATE_LIKE_SET.has(id);
}

/** Whether `id` only reads, so resending it after a lost answer is harmless. */
export function isReadOnly(id: string): boolean {
  return READ_ONLY_SET.has(id);
}

interface CryptoLike {
  randomUUID?: () => string;
  getRandomValues?: (array: Uint8Array) => Uint8Array;
}

/** A fresh idempotency key: `gc_` and a random UUID (v4). */
export function newIdempotencyKey(): string {
  const c = (globalThis as { crypto?: CryptoLike }).crypto;
  if (typeof c?.randomUUID === "function") return `gc_${c.randomUUID()}`;
  if (typeof c?.getRandomValues !== "function") {
    throw new Error("@gantry/client: crypto.getRandomValues is not available; pass an idempotencyKey yourself");
  }
  // randomUUID exists only in secure contexts of browsers; build the same v4 UUID by hand.
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `gc_${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Exponential backoff with jitter for retries without a server hint: 250 ms, 500 ms, 1 s, … ≤ 8 s, each 50–100 %. */
function backoff(attempt: number): number {
  const ceiling = Math.min(8_000, 250 * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/**
 * How long to wait before retrying after `err`, or undefined when it must not be retried. A server
 * hint is never shortened (an earlier retry would only be refused again); jitter is added on top so
 * clients refused together do not come back together.
 */
function retryDelay(err: GantryClientError, attempt: number, idempotent: boolean): number | undefined {
  if (err instanceof GantryApiError) {
    if (err.status !== 429 && err.status !== 503) return undefined;
    if (err.retryAfterMs === undefined) return backoff(attempt);
    return Math.round(err.retryAfterMs + Math.random() * Math.min(1_000, Math.max(50, err.retryAfterMs * 0.2)));
  }
  if (err instanceof GantryConnectionError && idempotent) return backoff(attempt);
  return undefined;
}

function abortReason(signal: AbortSignal): unknown {
  if (signal.reason !== undefined) return signal.reason;
  const err = new Error("This operation was aborted");
  err.name = "AbortError";
  return err;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as { cause?: unknown }).cause;
    const detail = inner instanceof Error ? `: ${inner.message}` : "";
    return `${cause.message}${detail}`;
  }
  return String(cause);
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new TypeError(`@gantry/client: ${name} must be a non-negative number`);
  }
  return value;
}

/** Segments that are never ability names: keeps `await client.contact` and the like from calling anything. */
const NOT_SEGMENTS = new Set(["then", "constructor"]);
const SEGMENT = /^[a-z][a-z0-9_]*$/;

type Invoke = (id: string, input?: unknown, options?: CallOptions) => Promise<unknown>;

/** `client.<area>`: a callable proxy whose property `x` is the namespace or ability `<id>.x`. */
function namespace(id: string, invoke: Invoke, cache: Map<string, unknown>): unknown {
  const cached = cache.get(id);
  if (cached) return cached;
  const target = (input?: unknown, options?: CallOptions) => invoke(id, input, options);
  Object.defineProperty(target, "name", { value: id });
  const node = new Proxy(target, {
    get(fn, prop, receiver) {
      if (typeof prop !== "string" || NOT_SEGMENTS.has(prop) || !SEGMENT.test(prop)) {
        return Reflect.get(fn, prop, receiver);
      }
      return namespace(`${id}.${prop}`, invoke, cache);
    },
  });
  cache.set(id, node);
  return node;
}

/**
 * A client for one gateway and key.
 *
 * @example
 * const gantry = createClient({ baseUrl: "http://localhost:8080", apiKey: process.env.GANTRY_API_KEY! });
 * const contact = await gantry.contact.create({ name: "Ada Obi", email: "ada@example.com" });
 * const { result, requestId } = await gantry.callWithMeta("contact.get", { id: contact.id });
 */
export function createClient(options: ClientOptions): GantryClient {
  if (!isRecord(options)) throw new TypeError("@gantry/client: createClient needs { baseUrl, apiKey }");
  if (typeof options.baseUrl !== "string" || !/^https?:\/\//i.test(options.baseUrl)) {
    throw new TypeError("@gantry/client: baseUrl must be an http(s) URL, e.g. http://localhost:8080");
  }
  if (typeof options.apiKey !== "function" && (typeof options.apiKey !== "string" || options.apiKey === "")) {
    throw new TypeError("@gantry/client: apiKey must be a key string or a function returning one");
  }
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const globalFetch = (globalThis as { fetch?: FetchLike }).fetch;
  if (options.fetch === undefined && typeof globalFetch !== "function") {
    throw new TypeError("@gantry/client: no global fetch in this runtime; pass options.fetch");
  }
  // Called as a plain function: browsers refuse a `fetch` called as a method of another object.
  const doFetch: FetchLike = options.fetch ?? ((url, init) => globalFetch!(url, init));
  const maxRetries = nonNegative("maxRetries", options.maxRetries, DEFAULTS.maxRetries);
  const maxRetryWaitMs = nonNegative("maxRetryWaitMs", options.maxRetryWaitMs, DEFAULTS.maxRetryWaitMs);
  const timeoutMs = nonNegative("timeoutMs", options.timeoutMs, DEFAULTS.timeoutMs);
  const autoKeys = options.autoIdempotencyKeys ?? true;
  const extraHeaders = { ...options.headers };

  async function attempt(
    id: string,
    body: string,
    signal: AbortSignal | undefined,
    attemptTimeoutMs: number,
  ): Promise<Omit<CallResult, "attempts" | "idempotencyKey">> {
    if (signal?.aborted) throw abortReason(signal);
    const apiKey = typeof options.apiKey === "function" ? await options.apiKey() : options.apiKey;
    const controller = new AbortController();
    let timedOut = false;
    const timer =
      attemptTimeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, attemptTimeoutMs)
        : undefined;
    const onAbort = () => controller.abort(abortReason(signal!));
    signal?.addEventListener("abort", onAbort, { once: true });
    let status: number;
    let headerId: string | null;
    let retryAfterHeader: string | null;
    let text: string;
    try {
      const res = await doFetch(`${baseUrl}/v1/abilities/${encodeURIComponent(id)}`, {
        method: "POST",
        headers: {
          ...extraHeaders,
          Authorization: `Bearer ${apiKey}`,
          "Content-Type": "application/json",
          Accept: "application/json",
        },
        body,
        signal: controller.signal,
      });
      status = res.status;
      headerId = res.headers.get("x-request-id");
      retryAfterHeader = res.headers.get("retry-after");
      text = await res.text();
    } catch (cause) {
      if (signal?.aborted) throw abortReason(signal);
      if (timedOut) {
        throw new GantryConnectionError(`${id}: no answer within ${attemptTimeoutMs} ms`, id, true, cause);
      }
      throw new GantryConnectionError(`${id}: request failed (${describe(cause)})`, id, false, cause);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }

    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = text;
    }
    const b = isRecord(parsed) ? parsed : {};
    const requestId = typeof b.requestId === "string" && b.requestId !== "" ? b.requestId : (headerId ?? "");
    if (status >= 200 && status < 300) {
      if (b.ok === true && "result" in b) {
        return {
          result: b.result as CallResult["result"],
          ability: (typeof b.ability === "string" ? b.ability : id) as AbilityId,
          requestId,
          duration: typeof b.duration === "number" ? b.duration : Number.NaN,
        };
      }
      throw new GantryApiError({
        code: "internal",
        status,
        message: `${id}: the answer (HTTP ${status}) is not a Gantry result envelope`,
        ability: id,
        requestId,
        body: parsed,
      });
    }
    const retryAfterMs =
      typeof b.retryAfterMs === "number" && Number.isFinite(b.retryAfterMs) && b.retryAfterMs >= 0
        ? b.retryAfterMs
        : parseRetryAfter(retryAfterHeader);
    throw new GantryApiError({
      code: isErrorCode(b.code) ? b.code : codeForStatus(status),
      status,
      message: typeof b.error === "string" ? b.error : `${id}: HTTP ${status}`,
      ability: typeof b.ability === "string" ? b.ability : id,
      requestId,
      reason: typeof b.reason === "string" ? b.reason : undefined,
      details: Array.isArray(b.details) ? (b.details as ErrorDetail[]) : undefined,
      retryAfterMs,
      body: parsed,
    });
  }

  async function callWithMeta(id: string, input?: unknown, callOptions: CallOptions = {}): Promise<CallResult> {
    if (typeof id !== "string" || id === "") throw new TypeError("@gantry/client: the ability id must be a string");
    let payload = input === undefined ? {} : input;
    if (!isRecord(payload)) throw new TypeError(`@gantry/client: the input of ${id} must be an object`);
    const given = payload.idempotencyKey;
    if (given !== undefined && callOptions.idempotencyKey !== undefined && given !== callOptions.idempotencyKey) {
      throw new TypeError(`@gantry/client: ${id}: input.idempotencyKey and options.idempotencyKey differ`);
    }
    let key = typeof given === "string" ? given : callOptions.idempotencyKey;
    if (key === undefined && given === undefined && autoKeys && CREATE_LIKE_SET.has(id)) key = newIdempotencyKey();
    if (key !== undefined && given === undefined) payload = { ...payload, idempotencyKey: key };
    const body = JSON.stringify(
      callOptions.context === undefined ? { input: payload } : { input: payload, context: callOptions.context },
    );

    const idempotent = callOptions.idempotent ?? (key !== undefined || READ_ONLY_SET.has(id));
    const retries = nonNegative("maxRetries", callOptions.maxRetries, maxRetries);
    const attemptTimeoutMs = nonNegative("timeoutMs", callOptions.timeoutMs, timeoutMs);
    let waited = 0;
    for (let n = 1; ; n++) {
      try {
        const outcome = await attempt(id, body, callOptions.signal, attemptTimeoutMs);
        const result: CallResult = { ...outcome, attempts: n };
        if (key !== undefined) result.idempotencyKey = key;
        return result;
      } catch (err) {
        if (!(err instanceof GantryClientError)) throw err;
        err.attempts = n;
        const delay = retryDelay(err, n, idempotent);
        if (delay === undefined || n > retries || waited + delay > maxRetryWaitMs) throw err;
        options.onRetry?.({ ability: id, attempt: n, delayMs: delay, error: err, idempotencyKey: key });
        await sleep(delay, callOptions.signal);
        waited += delay;
      }
    }
  }

  const cache = new Map<string, unknown>();
  const invoke: Invoke = async (id, input, callOptions) => (await callWithMeta(id, input, callOptions)).result;
  const client: Record<string, unknown> = { baseUrl, call: invoke, callWithMeta };
  for (const area of AREAS) {
    Object.defineProperty(client, area, {
      get: () => namespace(area, invoke, cache),
      enumerable: true,
    });
  }
  return Object.freeze(client) as unknown as GantryClient;
}
