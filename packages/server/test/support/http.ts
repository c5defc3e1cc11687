/** Plain HTTP calls for tests that exercise the wire itself (status codes, problem bodies, matrices). */
export interface Reply<T = any> {
  readonly status: number
  readonly contentType: string
  readonly body: T
}

export const http = (baseUrl: string, token?: string) =>
  async <T = any>(method: string, path: string, body?: unknown): Promise<Reply<T>> => {
    const response = await fetch(baseUrl + path, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {})
      },
      body: body !== undefined ? JSON.stringify(body) : undefined
    })
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      parsed = text
    }
    return { status: response.status, contentType: response.headers.get("content-type") ?? "", body: parsed as T }
  }

export type Call = ReturnType<typeof http>

/** Invites and accepts a user; answers their id and token. */
export const createUser = async (
  admin: Call,
  baseUrl: string,
  input: { email: string; departmentId: string; role?: string; clearance?: string }
) => {
  const invitation = await admin("POST", "/api/admin/invitations", input)
  if (invitation.status !== 201) throw new Error(`invitation failed: ${JSON.stringify(invitation.body)}`)
  const accepted = await http(baseUrl)("POST", "/api/invitations/accept", { code: invitation.body.invitationCode })
  if (accepted.status !== 201) throw new Error(`acceptance failed: ${JSON.stringify(accepted.body)}`)
  return { id: accepted.body.user.id as string, token: accepted.body.token.token as string, call: http(baseUrl, accepted.body.token.token) }
}
