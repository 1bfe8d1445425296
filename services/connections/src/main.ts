/**
 * @module connections/main
 * Entry point of the connections service (`node services/connections/src/main.ts`): runs the
 * service declared in service.ts.
 */
import { main } from "@gantry/kit";
import service from "./service.ts";

main(service);
