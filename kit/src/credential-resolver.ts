/**
 * @module kit/credential-resolver
 * The client side of `gantry.connections.v1.CredentialResolver`
 * (proto/gantry/connections/v1/connections.proto): the one way an area service (payments, content)
 * asks which credential to use for a tenant now — the tenant's own connection, else the platform
 * account — and learns which one answered (`credential_source`, shown to users as
 * `credentialSource`). Its messages are generated from the .proto (kit/src/generated/grpc.ts) and
 * re-exported here for the connections service (the server) and its callers.
 *
 * @example
 * const resolver = credentialResolver(deps.addrs.connections, deps.callKeys.signer("connections"));
 * const cred = await resolver.resolve(call.tenant, "payments", call.requestId);
 * if (cred.credential_source === "platform") use(cred.credentials.secret_key);
 */
import { CONNECTIONS_PROTO } from "@gantry/proto/paths";
import { makeClient } from "./grpc.ts";
import { callSignal } from "./call-signal.ts";
import type { CallSigner } from "./call-auth.ts";
import type { ResolvedCredential as ResolvedCredentialMessage } from "./generated/grpc.ts";

export type { ResolveCredentialRequest } from "./generated/grpc.ts";

/**
 * `gantry.connections.v1.ResolvedCredential`, with the two fields whose values the contract closes
 * (a string on the wire, so the proto cannot say so) narrowed to them.
 */
export type ResolvedCredential = Omit<ResolvedCredentialMessage, "credential_source" | "auth_scheme"> & {
  credential_source: "tenant" | "platform";
  auth_scheme: "oauth2" | "platform";
};

export interface CredentialResolverClient {
  /**
   * The credential for `service` (a service key such as `payments` or `email`) on behalf of
   * `tenant`. Rejects with the connections service's GantryError: `not_found` when the tenant has
   * no usable connection and no platform account is configured; `unavailable` when connections
   * cannot be reached.
   */
  resolve(tenant: string, service: string, requestId?: string): Promise<ResolvedCredential>;
  close(): void;
}

/** Deadline of one resolve: a refresh at the provider may happen inside it. */
const RESOLVE_DEADLINE_MS = 15_000;

/** `signer`: the calling service's key for connections, which serves only the callers kit/topology lists. */
export function credentialResolver(addr: string, signer: CallSigner | undefined): CredentialResolverClient {
  const client = makeClient(CONNECTIONS_PROTO, "gantry.connections.v1.CredentialResolver", addr, { signer });
  return {
    resolve: (tenant, service, requestId) =>
      client.unary(
        "ResolveCredential",
        { tenant, service, request_id: requestId ?? "" },
        // Stops when the call it resolves for does (kit/call-signal); that signal also aborts at its deadline.
        { deadlineMs: RESOLVE_DEADLINE_MS, signal: callSignal() },
      ) as Promise<ResolvedCredential>,
    close: () => client.close(),
  };
}
