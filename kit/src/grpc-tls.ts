/**
 * @module kit/grpc-tls
 * Mutual TLS between Gantry's processes, as an option (SECURITY.md, issue 27 item 4). Call tokens
 * (kit/call-auth) already prove who calls and what; TLS adds that nobody on the pod network reads
 * a call (tenants' credentials answered by connections) or replays one within its short life.
 *
 * Three variables, all or none, read by every gRPC server and client of the process:
 *
 * - `GRPC_TLS_CERT_FILE`: this process's certificate (PEM), presented as a server and as a client;
 * - `GRPC_TLS_KEY_FILE`: its private key (PEM);
 * - `GRPC_TLS_CA_FILE`: the CA (PEM) whose certificates are believed, on both sides.
 *
 * A server then takes only connections whose client presents a certificate of that CA; a client
 * checks the server's against the CA and the name it dialled (a name resolved to pod addresses is
 * still checked as that name, so a certificate for the Service's DNS name serves every replica).
 * Certificates are read once at start: a renewal is a restart.
 *
 * Under mTLS the gRPC port speaks nothing else, so kubelet's gRPC probe (which has no TLS) cannot
 * reach it: a chart that turns this on probes another way.
 */
import { readFileSync } from "node:fs";
import { ConfigError, defineEnv } from "./config.ts";

export const GRPC_TLS_ENV = defineEnv({
  GRPC_TLS_CERT_FILE: {
    type: "string",
    description: "PEM certificate this process presents on gRPC, as server and client (mTLS; with the two below)",
  },
  GRPC_TLS_KEY_FILE: { type: "string", description: "PEM private key of GRPC_TLS_CERT_FILE" },
  GRPC_TLS_CA_FILE: {
    type: "string",
    description: "PEM CA that signs every Gantry process's certificate; peers without one are refused",
  },
});

/** What mutual TLS needs, read from the files. */
export interface GrpcTls {
  cert: Buffer;
  key: Buffer;
  ca: Buffer;
}

/** The TLS material the variables name, or undefined when none is set. Some but not all: a ConfigError. */
export function loadGrpcTls(config: {
  GRPC_TLS_CERT_FILE?: string;
  GRPC_TLS_KEY_FILE?: string;
  GRPC_TLS_CA_FILE?: string;
}): GrpcTls | undefined {
  const files = {
    GRPC_TLS_CERT_FILE: config.GRPC_TLS_CERT_FILE,
    GRPC_TLS_KEY_FILE: config.GRPC_TLS_KEY_FILE,
    GRPC_TLS_CA_FILE: config.GRPC_TLS_CA_FILE,
  };
  const set = Object.entries(files).filter(([, v]) => v);
  if (set.length === 0) return undefined;
  if (set.length < 3) {
    const missing = Object.entries(files)
      .filter(([, v]) => !v)
      .map(([k]) => k);
    throw new ConfigError(`mutual TLS needs all three of GRPC_TLS_*_FILE; missing ${missing.join(", ")}`);
  }
  const read = (variable: keyof typeof files) => {
    try {
      return readFileSync(files[variable]!);
    } catch (err) {
      throw new ConfigError(`${variable}: cannot read ${files[variable]} (${(err as Error).message})`);
    }
  };
  return { cert: read("GRPC_TLS_CERT_FILE"), key: read("GRPC_TLS_KEY_FILE"), ca: read("GRPC_TLS_CA_FILE") };
}

let processTls: GrpcTls | undefined;

/**
 * Makes `tls` what this process's gRPC clients and servers use unless told otherwise. A process has
 * one certificate, so its entry point sets it once (runService, the gateway's start).
 */
export function useGrpcTls(tls: GrpcTls | undefined): void {
  processTls = tls;
}

/** The process's TLS material, if its entry point set any. */
export function grpcTls(): GrpcTls | undefined {
  return processTls;
}
