/**
 * @module kit/ssrf-test-origin
 * For the tests of the SSRF guard's kept-alive connections (kit/src/ssrf.test.ts,
 * kit/src/ssrf-proxy.test.ts): a loopback origin that records the client port of every request
 * (the same port is the same connection) and can hold a request open to keep its connection busy,
 * and a DNS resolver that answers from a script.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { SsrfResolver } from "./ssrf.ts";

export interface PooledOrigin {
  port: number;
  /** Every request, in order: its path and the client port it came from. */
  seen: { path: string; from: number }[];
  /**
   * The next `/hold` request is answered (`held`) only at `release()`; `busy` resolves once it has
   * arrived. Every other path answers `ok`.
   */
  hold(): { busy: Promise<void>; release: () => void };
  close(): void;
}

export async function startPooledOrigin(): Promise<PooledOrigin> {
  const seen: PooledOrigin["seen"] = [];
  let arrived: (() => void) | undefined;
  let held: Promise<void> = Promise.resolve();
  const server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? "", from: req.socket.remotePort ?? 0 });
    if (req.url === "/hold") {
      arrived?.();
      return void held.then(() => res.end("held"));
    }
    res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    hold: () => {
      const busy = new Promise<void>((r) => {
        arrived = r;
      });
      let release = () => {};
      held = new Promise<void>((r) => {
        release = r;
      });
      return { busy, release };
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A resolver answering from a queue of addresses (the last one repeats), counting its calls. */
export function scriptedResolver(first: string) {
  const answers = [first];
  const dns = {
    calls: 0,
    /** The answers from now on, in order. */
    then: (...next: string[]) => answers.splice(0, answers.length, ...next),
    resolve: ((_h, cb) => {
      dns.calls++;
      const address = answers.length > 1 ? (answers.shift() as string) : answers[0];
      cb(null, [{ address, family: 4 }]);
    }) as SsrfResolver,
  };
  return dns;
}
