/**
 * @module catalogue/workspace/sim
 * The workspace service's abilities of the `sim` area (Simulations: simulations).
 * `proto/catalogue/workspace.ts` assembles the service's areas in order.
 */
import type { AbilityEntry } from "../types.ts";
import { cursor, idempotencyKey, integer, limit, object, oneOfValues, slug } from "../schema.ts";
import { enumOf, fields, int, page, str } from "../output.ts";
import { created, updated } from "./shared.ts";

/** Sizes of a simulation's synthetic data set. */
export const SIM_SIZES = ["small", "medium"] as const;

const simulation = () =>
  fields(
    {
      simId: str("Simulation id (`sim_…`)."),
      id: str("Simulation id again (the same as `simId`)."),
      tenant: str("The sandbox sub-tenant's full tenant id (`<tenant>/sim-…`) holding the synthetic records."),
      subTenant: str("The sandbox's sub-tenant name (`sim-…`): send it as `context.tenantId` to read the records."),
      vertical: str("Vertical whose nouns shaped the data."),
      seed: int("Seed the data was generated from (the given one, or the one drawn)."),
      size: enumOf("small: tens of records; medium: hundreds.", SIM_SIZES),
      counts: fields(
        {
          contacts: int("Contacts written."),
          leads: int("Leads written."),
          tasks: int("Tasks written."),
        },
        [],
        { description: "Number of records written into the sandbox, by kind." },
      ),
      created: created("simulation"),
      updated: updated("simulation"),
    },
    [],
    { description: "A simulation and its sandbox sub-tenant." },
  );

export const abilities = [
  {
    id: "sim.generate",
    summary: "Generate deterministic synthetic records for a vertical into a sandbox sub-tenant.",
    inputSource: "ours",
    input: object(
      {
        vertical: slug("Vertical whose nouns shape the data (from vertical.list)."),
        seed: integer(
          "Seed; the same seed, vertical and size give the same data. Random when omitted (and returned).",
          0,
          2_147_483_647,
        ),
        size: oneOfValues("small: tens of records; medium: hundreds.", SIM_SIZES, "small"),
        idempotencyKey: idempotencyKey("the simulation"),
      },
      ["vertical"],
    ),
    output: simulation(),
    example: { vertical: "clinic", seed: 42, size: "small" },
  },
  {
    id: "sim.list",
    summary: "List the tenant's simulations and their sandbox sub-tenants.",
    inputSource: "ours",
    input: object({ vertical: slug("Only simulations of this vertical."), limit: limit(), cursor: cursor() }),
    output: page("Simulations, newest first.", simulation()),
    example: { vertical: "clinic" },
  },
] as const satisfies readonly AbilityEntry[];
