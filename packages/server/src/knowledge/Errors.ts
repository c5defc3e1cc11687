import { ProblemError } from "../domain/Errors"

export class SourceNotFound extends ProblemError<SourceNotFound>()("SourceNotFound", {
  status: 404, code: "SOURCE_NOT_FOUND", description: "No source with this id that the caller may see"
}) {}

export class CitationNotFound extends ProblemError<CitationNotFound>()("CitationNotFound", {
  status: 404, code: "CITATION_NOT_FOUND", description: "No citation with this id that the caller may see, or its document is gone"
}) {}

export class NotAContributor extends ProblemError<NotAContributor>()("NotAContributor", {
  status: 403, code: "NOT_A_CONTRIBUTOR", description: "The caller may read the knowledge space but not add to it"
}) {}

export class ClassificationAboveClearance extends ProblemError<ClassificationAboveClearance>()("ClassificationAboveClearance", {
  status: 403, code: "CLASSIFICATION_ABOVE_CLEARANCE", description: "The requested classification is above the caller's clearance"
}) {}

export class UnsupportedMediaType extends ProblemError<UnsupportedMediaType>()("UnsupportedMediaType", {
  status: 415, code: "UNSUPPORTED_MEDIA_TYPE", description: "The file is of a type Lore cannot index (PDF, DOCX, HTML, Markdown, text)"
}) {}

export class EmptyFile extends ProblemError<EmptyFile>()("EmptyFile", {
  status: 422, code: "EMPTY_FILE", description: "The file is empty: there is nothing to index"
}) {}

export class DeletionNotAllowed extends ProblemError<DeletionNotAllowed>()("DeletionNotAllowed", {
  status: 403, code: "DELETION_NOT_ALLOWED", description: "Only the document's uploader (while a contributor of its space) or a curator or manager of the space may delete it"
}) {}
