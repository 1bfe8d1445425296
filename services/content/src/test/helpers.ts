/**
 * Test helpers for the content service: the one-service harness (real Postgres, NATS, gRPC; the
 * service in this process; its files in the kit's blob store, Postgres by default), optionally beside a real connections
 * service (for ResolveCredential), and a real SMTP server on a loopback port (smtp-server) whose
 * received messages are parsed with mailparser.
 */
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";
import { startService, type ServiceHarness } from "@gantry/infra/testing/service.ts";
import type { Context } from "../context.ts";

export interface ContentTest {
  s: ServiceHarness<Context>;
  stop: () => Promise<void>;
}

/** A closed loopback port: ResolveCredential fails fast (unavailable) when no connections service is started. */
export const NO_CONNECTIONS = "127.0.0.1:9";

export async function startContent(env: Record<string, string> = {}): Promise<ContentTest> {
  const s = await startService<Context>("content", {
    CONNECTIONS_ADDR: NO_CONNECTIONS,
    ...env,
  });
  return {
    s,
    stop: () => s.stop(),
  };
}

export interface Received {
  from: string;
  to: string[];
  raw: string;
  parsed: ParsedMail;
}

export interface TestSmtp {
  port: number;
  url: string;
  received: Received[];
  stop: () => Promise<void>;
}

/**
 * A real SMTP server on 127.0.0.1: accepts mail for any address except those of `reject` (answered
 * 550 at RCPT TO), optionally requiring a login.
 */
export async function startSmtp(
  opts: { reject?: string[]; user?: string; pass?: string; options?: SMTPServerOptions } = {},
): Promise<TestSmtp> {
  const received: Received[] = [];
  const reject = new Set((opts.reject ?? []).map((a) => a.toLowerCase()));
  const server = new SMTPServer({
    secure: false,
    disabledCommands: opts.user ? ["STARTTLS"] : ["STARTTLS", "AUTH"],
    authOptional: !opts.user,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === opts.user && auth.password === opts.pass) return cb(null, { user: auth.username });
      cb(new Error("Invalid username or password"));
    },
    onRcptTo(address, _session, cb) {
      if (reject.has(address.address.toLowerCase())) {
        const err = new Error("5.1.1 No such user here") as Error & { responseCode: number };
        err.responseCode = 550;
        return cb(err);
      }
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", async () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          parsed: await simpleParser(raw),
        });
        cb();
      });
    },
    ...opts.options,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.server.address() as { port: number }).port;
  const auth = opts.user ? `${encodeURIComponent(opts.user)}:${encodeURIComponent(opts.pass ?? "")}@` : "";
  return {
    port,
    url: `smtp://${auth}127.0.0.1:${port}`,
    received,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
