import { type Clearance, clearanceValues, type CreateInvitation, type IssuedInvitation, type UserRole, userRoleValues } from "@lore/sdk"
import { Directory, oneOf, parseCount, requireEmail } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { formatTime, styled, type View } from "../../../output/view"
import { clearanceText } from "../../../views/clearance"

interface CreateFlags {
  readonly email: string
  readonly department: string
  readonly name?: string
  readonly role?: UserRole
  readonly clearance?: Clearance
  readonly expiresInDays?: number
}

const createdView =
  (server: string) =>
  ({ invitation, departmentName }: { readonly invitation: IssuedInvitation; readonly departmentName: string }): View => [
    { kind: "message", tone: "success", text: `Invited ${invitation.email} to ${departmentName} as ${invitation.role}, clearance ${clearanceText(invitation.clearance)}` },
    // What the invitee will be able to read once they accept, in the server's words (spaces included).
    { kind: "message", text: invitation.canRead.summary },
    {
      kind: "secret",
      label: "Invitation code (shown only now; give it to the invitee)",
      value: invitation.invitationCode,
      note: `The invitee runs: lore invitations accept <code> --server ${server}`
    },
    {
      kind: "fields",
      fields: [
        ["Id", styled(invitation.id, "muted")],
        ["Expires", formatTime(invitation.expiresAt)]
      ]
    }
  ]

export default defineCommand({
  description: "invite someone; prints the invitation code once",
  examples: [
    "lore admin invitations create --email ada@example.com --department Engineering",
    "lore admin invitations create --email cfo@example.com --department Finance --role manager --clearance CONFIDENTIAL --expires-in-days 7",
    "lore --json admin invitations create --email bob@example.com --department Sales | jq -r .invitationCode"
  ],
  notes: "Clearance STANDARD (the usual default) reads PUBLIC and INTERNAL documents, not CONFIDENTIAL ones, which is what uploads are by default.\nThe answer says what the invitee will be able to read (canRead).",
  configure: (command) =>
    command
      .requiredOption("--email <email>", "the invitee's email (becomes their login name)")
      .requiredOption("--department <department>", "department id or name the new user joins")
      .option("--name <name>", "the invitee's display name (they may choose another when accepting)")
      .option("--role <role>", `user role: ${userRoleValues.join(", ")} (default EMPLOYEE)`, oneOf(userRoleValues))
      .option("--clearance <clearance>", `clearance: ${clearanceValues.join(", ")} (default: the server's)`, oneOf(clearanceValues))
      .option("--expires-in-days <days>", "days until the code expires, 1 to 90 (default: the server's)", parseCount(1, 90)),
  run: async (runtime, command) => {
    const flags = command.opts<CreateFlags>()
    const email = requireEmail(flags.email)
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: `Inviting ${email}`,
      run: async () => {
        const department = await directory.department(flags.department)
        const body: { -readonly [K in keyof CreateInvitation]: CreateInvitation[K] } = { email, departmentId: department.id }
        if (flags.name !== undefined) body.name = flags.name
        if (flags.role !== undefined) body.role = flags.role
        if (flags.clearance !== undefined) body.clearance = flags.clearance
        if (flags.expiresInDays !== undefined) body.expiresInDays = flags.expiresInDays
        return { invitation: await directory.lore.admin.invitations.create(body), departmentName: department.name }
      },
      view: createdView(runtime.target().server),
      json: (result) => result.invitation
    })
  }
})
