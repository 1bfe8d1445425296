/**
 * @module memory/main
 * Entry point of the memory service (service.ts): semantic memory, the decision log and the
 * lessons inbox. See README.md.
 */
import { main } from "@gantry/kit";
import service from "./service.ts";

main(service);
