import { connectionTrustCommand } from "../../connectionTrust"

export default connectionTrustCommand("UNTRUSTED", "stop trusting a connection's identities: its ACLs then admit nobody in Lore")
