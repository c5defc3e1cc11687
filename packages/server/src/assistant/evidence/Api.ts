import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { KnowledgeSpaceNotFound } from "../../access/Errors"
import { PayloadTooLarge } from "../../domain/Errors"
import { Classification } from "../../domain/Model"
import { created, Query, Timestamp } from "../../domain/Schemas"
import { authenticated } from "../../domain/Security"
import { ClassificationAboveClearance, EmptyFile, NotAContributor, SourceNotFound, UnsupportedMediaType } from "../../knowledge/Errors"
import { ConversationNotFound } from "../Errors"
import { EvidenceBindingNotFound } from "./Errors"
import { RateLimitExceeded } from "../RateLimitErrors"

/** PROCESSING -> READY | FAILED, following the ingestion of the bound source; UNAVAILABLE once the caller may no longer see it. */
export const EvidenceBindingStatus = Schema.Literal("PROCESSING", "READY", "FAILED", "UNAVAILABLE").annotations({ identifier: "EvidenceBindingStatus" })

export const EvidenceBinding = Schema.Struct({
  id: Schema.UUID,
  conversationId: Schema.UUID,
  knowledgeSpaceId: Schema.UUID,
  sourceObjectId: Schema.UUID.annotations({ description: "The knowledge source the document was uploaded as (GET /api/sources/{id})" }),
  sourceRevisionId: Schema.UUID.annotations({ description: "The bound version of the knowledge asset (an upload is its own revision: equal to sourceObjectId)" }),
  knowledgeAssetId: Schema.UUID,
  title: Schema.String,
  fileName: Schema.String,
  status: EvidenceBindingStatus,
  failureCode: Schema.NullOr(Schema.String).annotations({ description: "When FAILED: the source's ingestion failure code (CORRUPT_FILE, NO_TEXT, ENCRYPTED, ...)" }),
  failureMessage: Schema.NullOr(Schema.String).annotations({ description: "When FAILED: what happened and what to do" }),
  createdAt: Timestamp
}).annotations({ identifier: "EvidenceBinding" })

export const EvidenceUploadQuery = Query({
  conversationId: Schema.optional(
    Schema.UUID.annotations({ description: "The caller's conversation the document is evidence for; without it, a new conversation titled with the file name is created, and the binding's conversationId names it" })
  ),
  knowledgeSpaceId: Schema.UUID.annotations({ description: "The knowledge space the document is ingested into (the caller must be a contributor)" }),
  classification: Schema.optionalWith(Classification, { default: () => "CONFIDENTIAL" as const })
})

const ConversationPath = Schema.Struct({ conversationId: Schema.UUID })
const BindingPath = Schema.Struct({ conversationId: Schema.UUID, bindingId: Schema.UUID })
const EvidenceUpload = HttpApiSchema.Multipart(Schema.Struct({ file: Multipart.SingleFileSchema }))

export class AssistantEvidenceApi extends HttpApiGroup.make("assistantEvidence")
  .add(
    HttpApiEndpoint.post("uploadEvidence", "/assistant/evidence")
      .setUrlParams(EvidenceUploadQuery)
      .setPayload(EvidenceUpload)
      .addSuccess(created(EvidenceBinding))
      .addError(ConversationNotFound)
      .addError(KnowledgeSpaceNotFound)
      .addError(NotAContributor)
      .addError(ClassificationAboveClearance)
      .addError(UnsupportedMediaType)
      .addError(EmptyFile)
      .addError(PayloadTooLarge)
      .addError(SourceNotFound)
      .addError(RateLimitExceeded)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("listEvidence", "/assistant/conversations/:conversationId/evidence")
      .setPath(ConversationPath)
      .addSuccess(Schema.Array(EvidenceBinding))
      .addError(ConversationNotFound)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("getEvidence", "/assistant/conversations/:conversationId/evidence/:bindingId")
      .setPath(BindingPath)
      .addSuccess(EvidenceBinding)
      .addError(ConversationNotFound)
      .addError(EvidenceBindingNotFound)
      .pipe(authenticated)
  )
  .annotate(OpenApi.Title, "Assistant evidence")
  .annotate(
    OpenApi.Description,
    "Documents bound to a conversation as evidence: ingested as knowledge sources of a space (governed by its access rules) and retrieved in that conversation's answers"
  ) {}
