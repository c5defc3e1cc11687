import { ProblemError } from "../domain/Errors"

export class GatewayNotFound extends ProblemError<GatewayNotFound>()("GatewayNotFound", {
  status: 404, code: "GATEWAY_NOT_FOUND", description: "No AI gateway with this id in the organization"
}) {}

export class GatewayKeyTaken extends ProblemError<GatewayKeyTaken>()("GatewayKeyTaken", {
  status: 409, code: "GATEWAY_KEY_TAKEN", description: "An AI gateway with this gatewayKey exists already"
}) {}

export class GatewayNotEditable extends ProblemError<GatewayNotEditable>()("GatewayNotEditable", {
  status: 409, code: "GATEWAY_NOT_EDITABLE", description: "The built-in LOCAL gateway and the one set by LORE_EMBEDDING_* cannot be changed or deleted here"
}) {}

export class GatewayInUse extends ProblemError<GatewayInUse>()("GatewayInUse", {
  status: 409, code: "GATEWAY_IN_USE", description: "Routes use this gateway; the detail names them. Route those workloads elsewhere (or reset them) first"
}) {}

export class AiVersionConflict extends ProblemError<AiVersionConflict>()("AiVersionConflict", {
  status: 409, code: "VERSION_CONFLICT", description: "The gateway or route changed since the version sent; read it again and retry"
}) {}

export class InvalidGateway extends ProblemError<InvalidGateway>()("InvalidGateway", {
  status: 400, code: "INVALID_GATEWAY", description: "The gateway's settings do not fit its preset (base URL, reasoning effort)"
}) {}

export class InvalidRoute extends ProblemError<InvalidRoute>()("InvalidRoute", {
  status: 400, code: "INVALID_ROUTE", description: "The gateway or model cannot serve this workload (e.g. Anthropic has no embeddings, LOCAL runs fixed models)"
}) {}

export class InvalidUsagePeriod extends ProblemError<InvalidUsagePeriod>()("InvalidUsagePeriod", {
  status: 400, code: "INVALID_USAGE_PERIOD", description: "since must be before until, and the period at most 366 days"
}) {}

export class GatewayTestFailed extends ProblemError<GatewayTestFailed>()("GatewayTestFailed", {
  status: 422, code: "GATEWAY_TEST_FAILED",
  description: "Setting the route tested its gateway and the test failed; the detail and errors[].code name the test's errorCode. Fix the gateway, or send force: true to route to it anyway"
}) {}
