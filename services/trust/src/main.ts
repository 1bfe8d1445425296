/**
 * @module trust/main
 * Entry point of the trust service (`node services/trust/src/main.ts`): runs the service declared in
 * service.ts.
 */
import { main } from "@gantry/kit";
import service from "./service.ts";

main(service);
