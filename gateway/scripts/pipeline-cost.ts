/**
 * CPU per call of the gateway's own policy pipeline (`runAbility`: authentication, scope, rate
 * limit, envelope, input shape, validation, outcome, metrics, audit record and its batch encoding),
 * in this process, with the hop stood in for: the owner answers a turn later with a 501
 * (`web.research`, switched off) or a small result (`key.inspect`). No HTTP, no gRPC, no NATS
 * socket, so it moves far less with the machine's load than a whole call does
 * (scripts/cost-per-call.ts) and shows a change of a few µs. 64 calls in flight, as the bench's
 * connections; 20,000 calls to warm up, then `N` measured.
 *
 * The first argument is the gateway's `src` directory to load, so the code before a change can be
 * measured beside it: a copy of that commit's `gateway/` with a `node_modules` link to this checkout's.
 *
 * @example
 * node_modules/.bin/node gateway/scripts/pipeline-cost.ts gateway/src web.research 100000
 * git archive <commit> gateway | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/node_modules
 * node_modules/.bin/node gateway/scripts/pipeline-cost.ts /tmp/before/gateway/src web.research 100000
 */
import { abilityById } from "@gantry/proto/catalogue";
import { GantryError } from "@gantry/kit";
import { standInGateway } from "./stand-in-deps.ts";

const [dirArg = "gateway/src", ability = "web.research", nArg = "100000"] = process.argv.slice(2);
const N = Number(nArg);
const answers501 = ability !== "key.inspect";
const { runAbility, key } = await standInGateway(dirArg, {
  // Answers a turn later, as a hop does: a rejection in the same turn would add Node's
  // unhandled-rejection bookkeeping, which a real call does not pay.
  dispatcher: {
    execute: () =>
      new Promise((resolve, reject) =>
        queueMicrotask(() =>
          answers501
            ? reject(new GantryError("not_implemented", `${ability} is switched off on this deployment.`))
            : resolve({ resultJson: '{"id":"key_bench","tenant":"bench","scopes":["*"]}', replayed: false }),
        ),
      ),
  },
});
const input = JSON.stringify({ input: abilityById.get(ability)?.example ?? {} });
let n = 0;
let bytes = 0;

async function calls(count: number): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (i++ < count) {
        const out = await runAbility({
          requestId: `req_${n++}`,
          started: performance.now(),
          credential: { authorization: `Bearer ${key}` },
          ability,
          body: { read: async () => JSON.parse(input) },
          baseUrl: "http://127.0.0.1:8080",
          clientAddress: "127.0.0.1",
          signal: new AbortController().signal,
          headers: {},
        });
        if (out.status !== (answers501 ? 501 : 200)) throw new Error(`unexpected answer ${JSON.stringify(out)}`);
        // As respond.ts writes it.
        bytes += (out.ok ? out.envelopeJson : JSON.stringify(out.body)).length;
      }
    }),
  );
}

await calls(20_000);
const before = process.cpuUsage();
await calls(N);
const used = process.cpuUsage(before);
console.log(
  `${dirArg} ${ability}: ${((used.user + used.system) / N).toFixed(2)} µs of CPU per call (${N} calls, answers of ${Math.round(bytes / (N + 20_000))} B)`,
);
process.exit(0);
