import net from "node:net";

/**
 * What nats-server answers to CONNECT with `login` (none: no credentials), then `PUB subject`
 * (or `SUB subject` with `sub`), then PING: the lines up to PONG or the first error. The raw protocol, so nothing between the
 * test and the server retries, hides or reorders an error.
 */
export function natsSays(
  url: string,
  login: { user?: string; pass?: string },
  subject?: string,
  op: "pub" | "sub" = "pub",
): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: hostname, port: Number(port) });
    sock.setTimeout(3000, () => sock.destroy(new Error("timeout")));
    sock.once("error", reject);
    let text = "";
    let sent = false;
    sock.on("data", (d) => {
      text += d.toString();
      if (!sent && text.includes("INFO ")) {
        sent = true;
        const connect = JSON.stringify({ verbose: false, pedantic: false, ...login });
        sock.write(
          `CONNECT ${connect}\r\n${subject ? (op === "sub" ? `SUB ${subject} 1\r\n` : `PUB ${subject} 2\r\nhi\r\n`) : ""}PING\r\n`,
        );
      }
      if (/PONG|-ERR/.test(text)) {
        resolve(
          text
            .split("\r\n")
            .filter((l) => l && !l.startsWith("INFO"))
            .join("\n"),
        );
        sock.end();
      }
    });
  });
}
