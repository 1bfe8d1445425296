/**
 * @module bench/servers/ceiling
 * The machine's ceiling: a bare `node:http` server answering every request with the same ~100-byte
 * JSON. Also the trivial backend that express-gateway proxies to. Prints `READY <port>`.
 *
 * Env: PORT (default 0 = any free port), HOST (default 127.0.0.1).
 */
import http from "node:http";

/** Fixed response body, shaped like a small success envelope (~100 bytes). */
export const BODY = JSON.stringify({
  ok: true,
  ability: "bench.echo",
  result: { message: "hello from the backend", n: 42 },
  duration: 0.1,
});
const bytes = Buffer.from(BODY);
const headers = { "content-type": "application/json", "content-length": String(bytes.length) };

const server = http.createServer((req, res) => {
  // Drain the request body (POSTs), then answer.
  req.resume();
  req.once("end", () => {
    res.writeHead(200, headers);
    res.end(bytes);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? "127.0.0.1", () => {
  const addr = server.address();
  process.stdout.write(`READY ${typeof addr === "object" && addr ? addr.port : 0}\n`);
});
process.once("SIGTERM", () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
