import { FiberRef } from "effect"
import { randomUUID } from "node:crypto"

/** The request id of the request being served: the caller's X-Request-Id when sane, else a new uuid. */
export const CurrentRequestId = FiberRef.unsafeMake<string>("")

const acceptable = /^[A-Za-z0-9._:-]{1,128}$/

export const requestIdFrom = (header: string | undefined): string =>
  header !== undefined && acceptable.test(header) ? header : randomUUID()
