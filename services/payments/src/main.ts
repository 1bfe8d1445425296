/**
 * @module payments/main
 * The payments service. Its abilities are declared in proto/catalogue/payments.ts; until their handlers are
 * wired, each answers not_implemented, which the gateway returns as HTTP 501.
 */
import { defineService, main } from "@gantry/kit";

main(defineService({ name: "payments", init: () => ({}) }));
