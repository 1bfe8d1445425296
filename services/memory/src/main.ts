/**
 * @module memory/main
 * The memory service. Its abilities are declared in proto/catalogue/memory.ts; until their handlers are
 * wired, each answers not_implemented, which the gateway returns as HTTP 501.
 */
import { main } from "@gantry/kit";

main({
  name: "memory",
  abilities: () => ({}),
});
