import { BlockList, isIP } from "node:net"

/**
 * The outbound guard's notion of a public address: anything but loopback, private, link-local, carrier-grade
 * NAT, unspecified, IPv4-compatible, multicast, reserved and documentation ranges (IPv4, IPv6, and IPv4 mapped
 * into IPv6, which BlockList checks against the IPv4 rules).
 */
const nonPublic = new BlockList()
for (const [network, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24],
  ["224.0.0.0", 4], ["240.0.0.0", 4]
] as const) nonPublic.addSubnet(network, prefix, "ipv4")
for (const [network, prefix] of [
  // ::/96 holds the unspecified address, ::1 and the deprecated IPv4-compatible addresses (::127.0.0.1).
  ["::", 96], ["64:ff9b::", 96], ["64:ff9b:1::", 48], ["100::", 64], ["2001:db8::", 32], ["fc00::", 7], ["fe80::", 10],
  ["fec0::", 10], ["ff00::", 8]
] as const) nonPublic.addSubnet(network, prefix, "ipv6")

/** An IP literal as URL hosts write it (`[::1]` for IPv6), or null when the host is a name. */
export const ipLiteral = (hostname: string): string | null => {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname
  return isIP(bare) === 0 ? null : bare
}

/** Whether an IP address (no brackets) is public; anything that is not an IP address is not. */
export const isPublicAddress = (address: string): boolean => {
  const family = isIP(address)
  if (family === 0) return false
  return !nonPublic.check(address, family === 6 ? "ipv6" : "ipv4")
}

/**
 * Whether a host is obviously not public without resolving it (an IP literal in a private range, or a
 * localhost name, trailing dot or not): what config validation can refuse before anything is fetched.
 */
export const obviouslyPrivateHost = (hostname: string): boolean => {
  const host = hostname.toLowerCase().replace(/\.$/, "")
  if (host === "localhost" || host.endsWith(".localhost")) return true
  const literal = ipLiteral(host)
  return literal !== null && !isPublicAddress(literal)
}
