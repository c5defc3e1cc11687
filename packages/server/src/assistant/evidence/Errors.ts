import { ProblemError } from "../../domain/Errors"

export class EvidenceBindingNotFound extends ProblemError<EvidenceBindingNotFound>()("EvidenceBindingNotFound", {
  status: 404, code: "EVIDENCE_BINDING_NOT_FOUND", description: "No evidence binding with this id in a conversation the caller owns"
}) {}
