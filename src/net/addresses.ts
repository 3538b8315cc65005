// What kind of address a host is, classified with ipaddr.js: global unicast (the only targets an
// outbound call may reach, src/net/outbound.ts) and loopback (where `agentbank dev` may listen).
import ipaddr from "ipaddr.js";

/** The IPv4 address an IPv6 form carries (mapped, compatible, NAT64, 6to4), or the address itself. */
function unwrap(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (address.kind() === "ipv4") return address;
  const v6 = address as ipaddr.IPv6;
  const parts = v6.parts;
  const embedded = (high: number, low: number) => ipaddr.IPv4.parse(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  // ::a.b.c.d (IPv4-compatible, deprecated) — ipaddr.js calls the hex spelling ::7f00:1 "unicast".
  if (parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7]! > 1)) return embedded(parts[6]!, parts[7]!);
  const range = v6.range();
  if (range === "rfc6052") return embedded(parts[6]!, parts[7]!); // NAT64 64:ff9b::/96
  if (range === "6to4") return embedded(parts[1]!, parts[2]!); // 2002:AABB:CCDD::/48
  return v6;
}

/** Only global unicast addresses may be called: no loopback, private, link-local, metadata, multicast, reserved. */
export function isPublicAddress(text: string): boolean {
  if (!ipaddr.isValid(text)) return false;
  return unwrap(ipaddr.process(text)).range() === "unicast";
}

/**
 * Whether a bind address (HOST) reaches this machine only: `localhost`, 127.0.0.0/8 or ::1 (an IPv6
 * form carrying a loopback IPv4 address too). No name is resolved: any other name is not loopback.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  if (bare.toLowerCase() === "localhost") return true;
  return ipaddr.isValid(bare) && unwrap(ipaddr.process(bare)).range() === "loopback";
}
