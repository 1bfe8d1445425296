/**
 * @module gateway/testing/fake-keys-service
 * For unit tests of the key cache and authentication: the keys service's `ResolveKey` stood in for
 * by a map of records by secret hash, with the hashes it was asked for, so a test sees which
 * lookups were made and which were saved.
 */
import { GantryError, type KeyRecord, type RpcClient } from "@gantry/kit";

export function fakeKeysService(known: ReadonlyMap<string, KeyRecord>) {
  const lookups: string[] = [];
  const client = {
    async unary(_method: string, req: { secret_sha256: string }) {
      lookups.push(req.secret_sha256);
      const record = known.get(req.secret_sha256);
      if (!record) throw new GantryError("not_found", "no such key");
      return record;
    },
  } as unknown as RpcClient<"gantry.keys.v1.KeyResolver">;
  return { client, lookups };
}
