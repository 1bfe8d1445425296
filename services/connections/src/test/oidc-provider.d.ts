/**
 * The slice of `oidc-provider` (a certified OpenID Provider, used by the tests as a real
 * authorization server) the tests use. The package ships no types.
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export interface ProviderContext {
    oidc: { params?: Record<string, unknown> };
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (ctx: ProviderContext, ...args: unknown[]) => void): this;
  }
}
