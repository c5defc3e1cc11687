/** The WEB crawler's address rules are the shared outbound guard's (outbound/Addresses.ts). */
export { ipLiteral, isPublicAddress, obviouslyPrivateHost } from "../../outbound/Addresses"
