import type { Clearance, CreateInvitation, Invitation, InvitationStatus, IssuedInvitation, UserRole } from "@lore/sdk"
import type { Command } from "commander"
import { handler } from "../command"
import { usageError } from "../errors"
import { present } from "../output/render"
import { type Cell, formatDate, formatTime, styled, type View } from "../output/view"
import { CLEARANCES, departmentCell, Directory, idCell, isUuid, type Labels, oneOf, parseInvitationDays, userCell, USER_ROLES } from "./adminShared"

// `lore admin invitations list|create|revoke`; the invitee's side is `lore invitations accept` (invitations.ts).

export interface InvitationList {
  readonly invitations: ReadonlyArray<Invitation>
  readonly labels: Labels
}

export const listInvitations = async (directory: Directory): Promise<InvitationList> => {
  const [invitations, labels] = await Promise.all([directory.lore.admin.invitations.list(), directory.labels()])
  return { invitations, labels }
}

export interface InvitationInput {
  readonly email: string
  /** A department id or name. */
  readonly department: string
  readonly name?: string | undefined
  readonly role?: UserRole | undefined
  readonly clearance?: Clearance | undefined
  readonly expiresInDays?: number | undefined
}

export interface CreatedInvitation {
  readonly invitation: IssuedInvitation
  readonly departmentName: string
}

export const createInvitation = async (directory: Directory, input: InvitationInput): Promise<CreatedInvitation> => {
  const department = await directory.department(input.department)
  const body: { -readonly [K in keyof CreateInvitation]: CreateInvitation[K] } = { email: input.email, departmentId: department.id }
  if (input.name !== undefined) body.name = input.name
  if (input.role !== undefined) body.role = input.role
  if (input.clearance !== undefined) body.clearance = input.clearance
  if (input.expiresInDays !== undefined) body.expiresInDays = input.expiresInDays
  return { invitation: await directory.lore.admin.invitations.create(body), departmentName: department.name }
}

export const revokeInvitation = async (directory: Directory, invitationId: string) => {
  await directory.lore.admin.invitations.revoke(invitationId)
  return { id: invitationId, revoked: true as const }
}

const statusTone = { PENDING: "accent", ACCEPTED: "success", REVOKED: "error", EXPIRED: "warning" } as const

const statusCell = (status: InvitationStatus): Cell => styled(status, statusTone[status])

const invitationsView = ({ invitations, labels }: InvitationList): View => [
  {
    kind: "table",
    columns: [
      { header: "email" },
      { header: "status" },
      { header: "role" },
      { header: "clearance" },
      { header: "department" },
      { header: "invited" },
      { header: "expires" },
      { header: "accepted by" },
      { header: "id" }
    ],
    rows: invitations.map((invitation) => [
      invitation.email,
      statusCell(invitation.status),
      invitation.role,
      invitation.clearance,
      departmentCell(labels, invitation.departmentId),
      formatDate(invitation.invitedAt),
      formatDate(invitation.expiresAt),
      userCell(labels, invitation.acceptedAppUserId),
      idCell(invitation.id)
    ]),
    empty: "No invitations."
  }
]

const createdView =
  (server: string) =>
  ({ invitation, departmentName }: CreatedInvitation): View => [
    { kind: "message", tone: "success", text: `Invited ${invitation.email} to ${departmentName} as ${invitation.role} (clearance ${invitation.clearance})` },
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

interface CreateFlags {
  readonly email: string
  readonly department: string
  readonly name?: string
  readonly role?: UserRole
  readonly clearance?: Clearance
  readonly expiresInDays?: number
}

export const registerInvitationCommands = (admin: Command) => {
  const invitations = admin.command("invitations").description("invite people; each invitation is a one-time code")

  invitations
    .command("list")
    .description("every invitation and its status (PENDING, ACCEPTED, REVOKED, EXPIRED)")
    .action(
      handler(async (runtime) => {
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, {
          progress: "Loading invitations",
          run: () => listInvitations(directory),
          view: invitationsView,
          json: (result) => result.invitations
        })
      })
    )

  invitations
    .command("create")
    .description("invite someone; prints the invitation code once")
    .requiredOption("--email <email>", "the invitee's email (becomes their login name)")
    .requiredOption("--department <department>", "department id or name the new user joins")
    .option("--name <name>", "the invitee's display name (they may choose another when accepting)")
    .option("--role <role>", `user role: ${USER_ROLES.join(", ")} (default EMPLOYEE)`, oneOf(USER_ROLES))
    .option("--clearance <clearance>", `clearance: ${CLEARANCES.join(", ")} (default: the server's)`, oneOf(CLEARANCES))
    .option("--expires-in-days <days>", "days until the code expires, 1 to 90 (default: the server's)", parseInvitationDays)
    .action(
      handler(async (runtime, command) => {
        const flags = command.opts<CreateFlags>()
        if (!/^[^@\s]+@[^@\s]+$/.test(flags.email.trim())) throw usageError(`'${flags.email}' is not an email address`)
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, {
          progress: `Inviting ${flags.email}`,
          run: () => createInvitation(directory, { ...flags, email: flags.email.trim() }),
          view: createdView(runtime.target().server),
          json: (result) => result.invitation
        })
      })
    )

  invitations
    .command("revoke")
    .description("revoke a pending invitation: its code stops working")
    .argument("<invitationId>", "the invitation's id ('lore admin invitations list')")
    .action(
      handler(async (runtime, command) => {
        const [invitationId] = command.processedArgs as [string]
        if (!isUuid(invitationId)) throw usageError(`'${invitationId}' is not an invitation id; 'lore admin invitations list' shows the ids`)
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, {
          progress: "Revoking invitation",
          run: () => revokeInvitation(directory, invitationId),
          view: (result) => [{ kind: "message", tone: "success", text: `Revoked invitation ${result.id}` }]
        })
      })
    )
}
