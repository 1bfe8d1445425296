/**
 * @module kit/ssrf-pool
 * The undici half of the SSRF guard (kit/src/ssrf.ts), which loads it at a guard's first connection:
 * the guard's pool of kept-alive connections, whose clients remember their socket's peer, and one
 * request's view of that pool that tells the request which peer it went to. What a connection may
 * reach is decided by the `connect` the guard passes in; nothing here checks an address.
 */
import type { Socket } from "node:net";
import { Agent, buildConnector, Client, DecoratorHandler, Dispatcher, fetch, Pool } from "undici";

export { buildConnector, fetch };

/** The guard's pooled Agent: every new connection made by `connect`, kept alive and reused per origin. */
export function guardPool(connect: buildConnector.connector): Agent {
  return new Agent({
    connect,
    factory: (origin, options) =>
      new Pool(origin, { ...options, factory: (o, clientOptions) => new PeerClient(o, clientOptions) }),
  });
}

/** Where one pooled client's socket is connected (a client holds one socket at a time). */
interface Peer {
  address: string | undefined;
}

/**
 * Carried in a request's dispatch options down the Agent and its Pool to the client that takes the
 * request (the handler cannot carry it: the Agent wraps it first).
 */
const SENT_ON = Symbol("ssrf.sentOn");
type PeerDispatchOptions = Dispatcher.DispatchOptions & { [SENT_ON]?: (peer: Peer) => void };

/** A client of the guard's pool that remembers its socket's peer and tells each request sent on it. */
class PeerClient extends Client {
  readonly #peer: Peer;

  constructor(origin: string | URL, options: Client.Options) {
    const peer: Peer = { address: undefined };
    const connect = options.connect as buildConnector.connector;
    super(origin, {
      ...options,
      connect: (opts, callback) =>
        connect(opts, (err, socket) => {
          peer.address = socket ? (socket as Socket).remoteAddress : undefined;
          if (err || !socket) callback(err ?? new Error("no socket"), null);
          else callback(null, socket);
        }),
    });
    this.#peer = peer;
  }

  override dispatch(opts: PeerDispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    opts[SENT_ON]?.(this.#peer);
    return super.dispatch(opts, handler);
  }
}

/**
 * undici's DecoratorHandler forwards every callback in the handler API it is dispatched with; its
 * typings leave out the methods, so a subclass says which one it overrides.
 */
interface Decorating extends Dispatcher.DispatchHandler {
  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void;
}
const Decorator = DecoratorHandler as unknown as new (handler: Dispatcher.DispatchHandler) => Decorating;

/** A request's handler that reads its client's peer when the request is written to the socket. */
class PeerHandler extends Decorator {
  client: Peer | undefined;
  readonly #onPeer: (address: string | undefined) => void;

  constructor(handler: Dispatcher.DispatchHandler, onPeer: (address: string | undefined) => void) {
    super(handler);
    this.#onPeer = onPeer;
  }

  override onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.#onPeer(this.client?.address);
    super.onRequestStart(controller, context);
  }
}

/** One request's view of the guard's pool: the same connections, and the peer its request went to. */
export class PeerDispatcher extends Dispatcher {
  address: string | undefined;
  readonly #pool: Agent;

  constructor(pool: Agent) {
    super();
    this.#pool = pool;
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const peerHandler = new PeerHandler(handler, (address) => {
      this.address = address;
    });
    const sentOn = (peer: Peer) => {
      peerHandler.client = peer;
    };
    return this.#pool.dispatch({ ...opts, [SENT_ON]: sentOn } as PeerDispatchOptions, peerHandler);
  }
}
