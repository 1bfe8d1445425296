/**
 * @module payments/main
 * Entry point of the payments service (`node services/payments/src/main.ts`): runs the service
 * declared in service.ts.
 */
import { main } from "@gantry/kit";
import service from "./service.ts";

main(service);
