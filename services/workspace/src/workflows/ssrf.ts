/**
 * @module workspace/workflows/ssrf
 * The SSRF guard of workflow deliveries. An endpoint may only be reached on a public unicast
 * address: loopback, private (RFC 1918), CGNAT, link-local (incl. cloud metadata 169.254.169.254),
 * unique-local, multicast, documentation, benchmarking, NAT64/6to4 and other special-purpose ranges
 * are refused. IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are judged by their IPv4 address
 * (Node's BlockList applies the IPv4 rules to them). The check runs where the connection is made: as the socket's
 * DNS `lookup` (so a name cannot resolve to a public address when checked and a private one when
 * used, i.e. no DNS rebinding window) and directly for IP-literal hosts (which skip lookup).
 * A name with ANY disallowed address is refused as a whole.
 *
 * `WORKFLOW_ALLOW_LOOPBACK=true` (tests and local development only) additionally allows
 * 127.0.0.0/8 and ::1 — nothing else.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";

const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  blocked.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const)
  blocked.addSubnet(net, prefix, "ipv6");

const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

export class BlockedAddressError extends Error {
  constructor(host: string, address: string) {
    super(`blocked by the SSRF guard: ${host} resolves to ${address}, which is not a public address`);
    this.name = "BlockedAddressError";
  }
}

/** Whether a literal address may be connected to. */
export function addressAllowed(address: string, allowLoopback: boolean): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const type = family === 4 ? "ipv4" : "ipv6";
  if (allowLoopback && loopback.check(address, type)) return true;
  return !blocked.check(address, type);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for http(s).request that refuses disallowed addresses. */
export function guardedLookup(allowLoopback: boolean) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string } | number,
    callback: LookupCallback,
  ): void => {
    const opts = typeof options === "object" && options !== null ? options : {};
    dnsLookup(hostname, { all: true, family: typeof opts.family === "number" ? opts.family : 0 }, (err, addresses) => {
      if (err) return callback(err, "");
      const list = addresses as LookupAddress[];
      const bad = list.find((a) => !addressAllowed(a.address, allowLoopback));
      if (bad || list.length === 0) {
        const e = new BlockedAddressError(hostname, bad?.address ?? "(no address)") as Error & { code?: string };
        e.code = "EBLOCKED";
        return callback(e, "");
      }
      if (opts.all) return callback(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/** Checks an IP-literal host up front (Node does not call `lookup` for literals). */
export function assertLiteralAllowed(hostname: string, allowLoopback: boolean): void {
  const bare = hostname.replace(/^\[|\]$/g, "");
  if (isIP(bare) && !addressAllowed(bare, allowLoopback)) throw new BlockedAddressError(hostname, bare);
}
