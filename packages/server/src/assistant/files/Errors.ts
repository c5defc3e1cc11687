import { ProblemError } from "../../domain/Errors"

export class AssistantFileNotFound extends ProblemError<AssistantFileNotFound>()("AssistantFileNotFound", {
  status: 404, code: "ASSISTANT_FILE_NOT_FOUND", description: "No assistant file with this id among the caller's own (files are private to their owner; expired files are gone)"
}) {}

export class FileChunkNotFound extends ProblemError<FileChunkNotFound>()("FileChunkNotFound", {
  status: 404, code: "FILE_CHUNK_NOT_FOUND", description: "No chunk with this id in the file's current processing generation"
}) {}

export class AssistantFileNotReady extends ProblemError<AssistantFileNotReady>()("AssistantFileNotReady", {
  status: 409, code: "ASSISTANT_FILE_NOT_READY", description: "The file is still processing, or processing failed (see its failureCode): it cannot be used as chat context yet"
}) {}
