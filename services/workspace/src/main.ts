/**
 * @module workspace/main
 * Entry point of the workspace service (`node services/workspace/src/main.ts`): runs the service
 * declared in service.ts.
 */
import { main } from "@gantry/kit";
import service from "./service.ts";

main(service);
