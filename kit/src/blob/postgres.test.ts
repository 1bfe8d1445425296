/**
 * The Postgres blob driver against a real Postgres: the blob contract, on the service's kind of pool
 * (TenantPool, switched to the unprivileged service role so row-level security applies), with the
 * table made by BLOBS_TABLE_SQL and put under tenant isolation as a service's migration would be.
 */
import { after, before } from "node:test";
import { startTestStack, type TestStack } from "@gantry/infra/testing/stack.ts";
import { SERVICE_ROLE, TenantPool, enforceTenantIsolation } from "../tenancy.ts";
import { blobContract } from "./contract.ts";
import { PostgresBlobStore } from "./postgres.ts";
import { BLOBS_TABLE_SQL } from "./store.ts";

let t: TestStack;
let pool: TenantPool;
let offset = 0;
const now = () => Date.now() + offset;
let store: PostgresBlobStore;

before(async () => {
  t = await startTestStack({ services: [], gateways: 0 });
  await t.db.query(`CREATE SCHEMA blob_demo; SET search_path TO blob_demo; ${BLOBS_TABLE_SQL}; RESET search_path`);
  await enforceTenantIsolation(t.db, "blob_demo", SERVICE_ROLE);
  pool = new TenantPool({ connectionString: t.stack.env.DATABASE_URL, max: 4, role: SERVICE_ROLE });
  pool.on("error", () => {});
  store = new PostgresBlobStore(pool, "blob_demo", now);
});
after(async () => {
  await pool?.end();
  await t?.stop();
});

blobContract("postgres", { store: () => store, advance: (ms) => (offset += ms), now });
