import { type Invitation, type InvitationStatus, invitationStatusValues } from "@lore/sdk"
import { Directory, type Labels } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { type Cell, formatDate, styled, type View } from "../../../output/view"
import { clearanceLegend } from "../../../views/clearance"
import { departmentCell, idCell, userCell } from "../../../views/users"

const statusTone = { PENDING: "accent", ACCEPTED: "success", REVOKED: "error", EXPIRED: "warning" } as const

const statusCell = (status: InvitationStatus): Cell => styled(status, statusTone[status])

const invitationsView = ({ invitations, labels }: { readonly invitations: ReadonlyArray<Invitation>; readonly labels: Labels }): View => [
  {
    kind: "table",
    columns: [
      { header: "email" },
      { header: "status" },
      { header: "role" },
      { header: "clearance" },
      { header: "department", fit: "text" },
      { header: "invited", fit: "optional" },
      { header: "expires" },
      { header: "accepted by", fit: "optional" },
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
  },
  ...clearanceLegend(invitations.map((invitation) => invitation.clearance))
]

export default defineCommand({
  description: `every invitation and its status (${invitationStatusValues.join(", ")})`,
  isDefault: true,
  examples: ["lore admin invitations list", "lore --json admin invitations | jq -r '.[] | select(.status == \"PENDING\") | .email'"],
  run: async (runtime) => {
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: "Loading invitations",
      run: async () => {
        const [invitations, labels] = await Promise.all([directory.lore.admin.invitations.list(), directory.labels()])
        return { invitations, labels }
      },
      view: invitationsView,
      json: (result) => result.invitations
    })
  }
})
