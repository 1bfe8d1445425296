/**
 * @module client/types
 * The client's types: ability ids, inputs and results (from the generated catalogue view), call
 * options and results, and the nested ability namespaces (`client.contact.create`) derived from the
 * ids by splitting them on ".".
 */
import type { Abilities } from "./generated/abilities.ts";
import type { GantryClientError } from "./errors.ts";

/** Every ability id, e.g. `"contact.create"`. */
export type AbilityId = keyof Abilities & string;

/** What an ability takes, as a caller writes it: fields with a default may be omitted. */
export type AbilityInput<Id extends AbilityId> = Abilities[Id]["input"];

/** What an ability returns on success (`result` of the envelope); `unknown` where the catalogue states no output yet. */
export type AbilityOutput<Id extends AbilityId> = Abilities[Id]["output"];

/** Call context (spec §2.2): `tenantId` is honoured only for keys with the sub-tenant flag. */
export interface CallContext {
  /** Sub-tenant to act for; nests under the key's tenant (`acme` + `shop1` → `acme/shop1`). */
  tenantId?: string;
  /** Id of the agent run the call belongs to (audited). */
  runId?: string;
  /** Vertical the call belongs to (audited). */
  verticalId?: string;
}

/** Options of one call. */
export interface CallOptions {
  /** The envelope's `context`. */
  context?: CallContext;
  /**
   * Idempotency key of a create-like ability (sent as the input's `idempotencyKey`). Without one the
   * client makes one up for create-like abilities, so its own retries never create twice; give your
   * own to make retries across processes or restarts safe too.
   */
  idempotencyKey?: string;
  /** Aborts the call (and any wait between retries); the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** This call's per-attempt timeout (default: the client's `timeoutMs`). */
  timeoutMs?: number;
  /** This call's retry bound (default: the client's `maxRetries`). */
  maxRetries?: number;
  /**
   * Whether the call may be sent again after a network failure or timeout (when the request may
   * have reached the server). Default: true for read-only abilities and calls carrying an
   * idempotency key, false otherwise.
   */
  idempotent?: boolean;
}

/** A successful call with what came with it. */
export interface CallResult<Id extends AbilityId = AbilityId> {
  /** The ability's result. */
  result: AbilityOutput<Id>;
  /** The ability that ran. */
  ability: Id;
  /** The request id (`X-Request-Id`): the audit record's id; quote it when reporting a problem. */
  requestId: string;
  /** Server-side duration of the call in milliseconds (the envelope's `duration`). */
  duration: number;
  /** Attempts made: 1 plus the retries. */
  attempts: number;
  /** The idempotency key sent (yours or the one the client made up); absent when none was. */
  idempotencyKey?: string;
}

/** The arguments after the id: the input may be omitted when none of its fields is required. */
export type CallArgs<Id extends AbilityId> =
  Record<never, never> extends AbilityInput<Id>
    ? [input?: AbilityInput<Id>, options?: CallOptions]
    : [input: AbilityInput<Id>, options?: CallOptions];

/** One ability as a method: `client.contact.create({ name: "Ada" })`. */
export type AbilityMethod<Id extends AbilityId> = (...args: CallArgs<Id>) => Promise<AbilityOutput<Id>>;

type Segment<P extends string> = AbilityId extends infer Id
  ? Id extends `${P}${infer Head}.${string}`
    ? Head
    : never
  : never;
type Leaf<P extends string> = AbilityId extends infer Id
  ? Id extends `${P}${infer Last}`
    ? Last extends `${string}.${string}`
      ? never
      : Last
    : never
  : never;

/** The abilities under a dotted prefix, as nested objects and methods (`Namespace<"workspace.">` has `doc.create`, …). */
export type Namespace<P extends string = ""> = {
  readonly [Head in Segment<P>]: Namespace<`${P}${Head}.`>;
} & {
  readonly [Last in Leaf<P>]: AbilityMethod<`${P}${Last}` & AbilityId>;
};

/** Every area of the catalogue (`contact`, `memory`, …): the first segment of an ability id. */
export type Area = Segment<"">;

/** What `fetch` the client needs: the global `fetch` fits, and so does any wrapper with this shape. */
export type FetchLike = (url: string, init: FetchInit) => Promise<FetchResponse>;

/** The request the client hands to `fetch`. */
export interface FetchInit {
  method: "POST";
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
}

/** The part of a `Response` the client reads. */
export interface FetchResponse {
  status: number;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/** Reported to `onRetry` before the client waits and tries again. */
export interface RetryEvent {
  ability: string;
  /** The attempt that failed (1 = the first). */
  attempt: number;
  /** How long the client waits before the next attempt, in milliseconds. */
  delayMs: number;
  /** Why: a 429/503 `GantryApiError`, or a `GantryConnectionError` of an idempotent call. */
  error: GantryClientError;
  /** The idempotency key every attempt of this call carries, if any. */
  idempotencyKey?: string;
}

/** Options of `createClient`. */
export interface ClientOptions {
  /** The gateway's base URL, e.g. `https://gantry.example.com` or `http://localhost:8080`. */
  baseUrl: string;
  /** The API key (`gk_…`), or a function returning it (asked before every attempt). */
  apiKey: string | (() => string | Promise<string>);
  /** The `fetch` to use (default: the global one). */
  fetch?: FetchLike;
  /** Retries after the first attempt, on 429, 503 and (idempotent calls) network failures. Default 2. */
  maxRetries?: number;
  /** Bound on the total time one call spends waiting between attempts, in milliseconds. Default 30 000. */
  maxRetryWaitMs?: number;
  /** Timeout of each attempt in milliseconds; 0 for none. Default 60 000 (the gateway's own upstream deadline is 30 s). */
  timeoutMs?: number;
  /** Make up an idempotency key for create-like abilities when the caller gives none. Default true. */
  autoIdempotencyKeys?: boolean;
  /** Extra request headers (e.g. for a proxy). `Authorization` and `Content-Type` are the client's. */
  headers?: Record<string, string>;
  /** Called before each retry (logging, metrics). */
  onRetry?: (event: RetryEvent) => void;
}

/** The methods every client has, beside the ability namespaces. */
export interface ClientCore {
  /** Calls an ability and returns its result. */
  call<Id extends AbilityId>(id: Id, ...args: CallArgs<Id>): Promise<AbilityOutput<Id>>;
  /** Calls an ability and returns its result with the request id, duration, attempts and idempotency key. */
  callWithMeta<Id extends AbilityId>(id: Id, ...args: CallArgs<Id>): Promise<CallResult<Id>>;
  /** The base URL calls go to (without a trailing slash). */
  readonly baseUrl: string;
}

/** A Gantry client: `call`, `callWithMeta`, and every area as a namespace (`client.contact.create(…)`). */
export type GantryClient = ClientCore & Namespace<"">;
