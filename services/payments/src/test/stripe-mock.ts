/**
 * Stripe's own stripe-mock (the binary CI builds and exports as STRIPE_MOCK_BIN), started on a free
 * loopback port for one test file. `null` when the variable is unset: the caller skips, saying why.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";

export const STRIPE_MOCK_SKIP = process.env.STRIPE_MOCK_BIN
  ? false
  : "STRIPE_MOCK_BIN is unset: provider_a (Stripe API) tests need Stripe's stripe-mock binary (built by .ci/run)";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export async function startStripeMock(): Promise<{ url: string; stop: () => Promise<void> }> {
  const bin = process.env.STRIPE_MOCK_BIN;
  if (!bin) throw new Error("STRIPE_MOCK_BIN is unset");
  const port = await freePort();
  const child = spawn(bin, ["-http-port", String(port)], { stdio: "ignore" });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const res = await fetch(`${url}/v1/balance`, { headers: { authorization: "Bearer sk_test_123" } });
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill();
      throw new Error(`stripe-mock did not start on port ${port}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill();
      await exited;
    },
  };
}
