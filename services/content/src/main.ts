/**
 * @module content/main
 * Entry point of the content service (`node services/content/src/main.ts`): runs the service
 * declared in service.ts.
 */
import { main } from "@gantry/kit";
import service from "./service.ts";

main(service);
