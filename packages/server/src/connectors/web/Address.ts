import { BlockList, isIP } from "node:net"

/**
 * The SSRF guard's notion of a public address: anything but loopback, private, link-local, carrier-grade NAT,
 * unspecified, multicast, reserved and documentation ranges (IPv4, IPv6, and IPv4 mapped into IPv6).
 */
const nonPublic = new BlockList()
for (const [network, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24],
  ["224.0.0.0", 4], ["240.0.0.0", 4]
] as const) nonPublic.addSubnet(network, prefix, "ipv4")
for (const [network, prefix] of [
  ["::", 128], ["::1", 128], ["64:ff9b::", 96], ["100::", 64], ["2001:db8::", 32], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8]
] as const) nonPublic.addSubnet(network, prefix, "ipv6")

/** An IP literal as URL hosts write it (`[::1]` for IPv6), or null when the host is a name. */
export const ipLiteral = (hostname: string): string | null => {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname
  return isIP(bare) === 0 ? null : bare
}

export const isPublicAddress = (address: string): boolean => {
  const family = isIP(address)
  if (family === 0) return false
  // BlockList checks IPv4-mapped IPv6 addresses (::ffff:7f00:1) against the IPv4 rules too.
  return !nonPublic.check(address, family === 6 ? "ipv6" : "ipv4")
}

/** Whether a host is obviously not public without resolving it (an IP literal, or localhost): for config validation. */
export const obviouslyPrivateHost = (hostname: string): boolean => {
  const host = hostname.toLowerCase()
  if (host === "localhost" || host.endsWith(".localhost")) return true
  const literal = ipLiteral(host)
  return literal !== null && !isPublicAddress(literal)
}
