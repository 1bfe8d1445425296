/**
 * @module web/main
 * The web service. Its abilities are declared in proto/catalogue/web.ts; until their handlers are
 * wired, each answers not_implemented, which the gateway returns as HTTP 501.
 */
import { defineService, main } from "@gantry/kit";

main(defineService({ name: "web", init: () => ({}) }));
