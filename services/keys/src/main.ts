/**
 * @module keys/main
 * Entry point of the keys service (`node services/keys/src/main.ts`); the service itself is
 * declared in service.ts.
 */
import { main } from "@gantry/kit";
import service from "./service.ts";

main(service);
