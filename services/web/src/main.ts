/**
 * @module web/main
 * Entry point of the web service (`node services/web/src/main.ts`): runs the service declared in
 * service.ts.
 */
import { main } from "@gantry/kit";
import service from "./service.ts";

main(service);
