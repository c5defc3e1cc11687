import { connectionTrustCommand } from "../../connectionTrust"

export default connectionTrustCommand("TRUSTED", "trust a connection's identities: its mapped principals grant access to what their ACLs admit")
