/**
 * CPU per call of the gateway's own policy pipeline (`runAbility`: authentication, scope, rate
 * limit, envelope, input shape, validation, outcome, metrics, audit record and its batch encoding),
 * in this process, with the hop stood in for: the owner answers a turn later with a 501
 * (`web.research`, switched off) or a result (`key.inspect`, `contact.get`, `payout.send`, each the
 * size its service answers, with the catalogue's example as input). No HTTP, no gRPC, no NATS
 * socket, so it moves far less with the machine's load than a whole call does
 * (scripts/cost-per-call.ts) and shows a change of a few µs. 64 calls in flight, as the bench's
 * connections; 20,000 calls to warm up, then `N` measured.
 *
 * The first argument is the gateway's `src` directory to load, so the code before a change can be
 * measured beside it: a copy of that commit's `gateway/` with a `node_modules` link to this checkout's.
 *
 * @example
 * node_modules/.bin/node gateway/scripts/pipeline-cost.ts gateway/src web.research 100000
 * node_modules/.bin/node gateway/scripts/pipeline-cost.ts gateway/src payout.send 100000
 * git archive <commit> gateway | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/node_modules
 * node_modules/.bin/node gateway/scripts/pipeline-cost.ts /tmp/before/gateway/src web.research 100000
 */
import { abilityById } from "@gantry/proto/catalogue";
import { GantryError } from "@gantry/kit";
import { standInGateway } from "./stand-in-deps.ts";

const [dirArg = "gateway/src", ability = "web.research", nArg = "100000"] = process.argv.slice(2);
const N = Number(nArg);
/** What the owners answer, as their services write it; any other ability answers 501. */
const RESULTS: Record<string, string> = {
  "key.inspect": '{"id":"key_bench","tenant":"bench","scopes":["*"]}',
  "contact.get":
    '{"id":"con_4f9a2c7e1b3d5f60a8c9e2b1","name":"Cost Lookup","email":null,"phone":null,"company":null,"title":null,"notes":null,"tags":[],"customFields":{},"createdAt":"2026-11-27T07:00:00.000Z","updatedAt":"2026-11-27T07:00:00.000Z"}',
  "payout.send":
    '{"id":"po_01JA2B3C4D5E6F7G8H9J0K1M2N","tenant":"cost-co","batchId":null,"recipientId":"rcp_01J9Z6A8B7C6D5E4F3G2H1J0K9","destination":{"country":"NG","currency":"USD","accountNumberLast4":"4321","bankCode":"058","bankName":"Sandbox Bank","accountName":"Ada Obi"},"amount":{"amount":1.25,"currency":"USD"},"fee":{"amount":0,"currency":"USD"},"status":"processing","provider":"provider_a","mode":"sandbox","credentialSource":"platform","description":null,"reference":"po_01JA2B3C4D5E6F7G8H9J0K1M2N","idempotencyKey":"s1042","metadata":{},"vertical":null,"providerReference":"sbx_trf_4f9a2c7e1b3d5f60","failureCode":null,"failureMessage":null,"requestId":"req_4f9a2c7e1b3d5f60a8c9e2","created":"2026-11-27T07:00:00.000Z","updated":"2026-11-27T07:00:00.000Z","paid":null}',
};
const result = RESULTS[ability];
const answers501 = result === undefined;
const { runAbility, key } = await standInGateway(dirArg, {
  // Answers a turn later, as a hop does: a rejection in the same turn would add Node's
  // unhandled-rejection bookkeeping, which a real call does not pay.
  dispatcher: {
    execute: () =>
      new Promise((resolve, reject) =>
        queueMicrotask(() =>
          answers501
            ? reject(new GantryError("not_implemented", `${ability} is switched off on this deployment.`))
            : resolve({ resultJson: result, replayed: false }),
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
