/**
 * @module infra/runner/ports
 * Port helpers: ask the kernel for a free loopback port, or take a preferred one when it is free.
 *
 * @example
 * const port = await pickPort(4222); // 4222 if free, otherwise any free port
 */
import net from "node:net";

/** Resolves true when nothing listens on `port` (we could bind it on 127.0.0.1). */
export function portFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once("error", () => resolve(false));
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/** A port the kernel considers free right now (bind to 0, read it back, release). */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once("error", reject);
    srv.listen({ port: 0, host, exclusive: true }, () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error("could not allocate a port"))));
    });
  });
}

const handedOut = new Set<number>();

/**
 * `preferred` when it is non-zero and free, else a free port. Ports handed out by this process
 * are remembered so two stacks started at once in one process never get the same one.
 */
export async function pickPort(preferred = 0): Promise<number> {
  if (preferred > 0 && !handedOut.has(preferred) && (await portFree(preferred))) {
    handedOut.add(preferred);
    return preferred;
  }
  for (let i = 0; i < 50; i++) {
    const port = await freePort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error("could not find a free port");
}

/** Forget a port handed out by {@link pickPort} (when its stack stops). */
export function releasePort(port: number): void {
  handedOut.delete(port);
}
