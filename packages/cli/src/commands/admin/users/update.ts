import { type Clearance, clearanceValues, type UpdateUser, type UserRole, userRoleValues } from "@lore/sdk"
import { atMostOne, Directory, nonEmpty, oneOf } from "../../../arguments"
import { defineCommand } from "../../../command"
import { usageError } from "../../../errors"
import { present } from "../../../output/present"
import { adminUserFields } from "../../../views/users"

interface UpdateFlags {
  readonly name?: string
  readonly role?: UserRole
  readonly clearance?: Clearance
  readonly department?: string
  readonly active?: boolean
  readonly inactive?: boolean
}

/** What the flags change, checked before any request; `department` is still a name or id. */
const changesFrom = (flags: UpdateFlags) => {
  atMostOne({ "--active": flags.active, "--inactive": flags.inactive })
  const changes = {
    name: flags.name === undefined ? undefined : nonEmpty(flags.name, "--name"),
    role: flags.role,
    clearance: flags.clearance,
    department: flags.department,
    active: flags.active ? true : flags.inactive ? false : undefined
  }
  if (Object.values(changes).every((value) => value === undefined)) {
    throw usageError("nothing to change: pass --name, --role, --clearance, --department, --active or --inactive")
  }
  return changes
}

export default defineCommand({
  description: "change a user's name, role, clearance, department or status (deactivating ends their tokens)",
  examples: [
    "lore admin users update ada@example.com --clearance CONFIDENTIAL --department Engineering",
    "lore admin users update ada@example.com --inactive",
    "lore admin users update <userId> --role manager"
  ],
  configure: (command) =>
    command
      .argument("<user>", "email or user id")
      .option("--name <name>", "display name")
      .option("--role <role>", `user role: ${userRoleValues.join(", ")}`, oneOf(userRoleValues))
      .option("--clearance <clearance>", `highest level the user may read: ${clearanceValues.join(", ")} (STANDARD reads INTERNAL)`, oneOf(clearanceValues))
      .option("--department <department>", "department id or name")
      .option("--active", "reactivate the user")
      .option("--inactive", "deactivate the user (their tokens and sessions stop working at once)"),
  run: async (runtime, command) => {
    const [userRef] = command.processedArgs as [string]
    const changes = changesFrom(command.opts<UpdateFlags>())
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: `Updating ${userRef}`,
      run: async () => {
        const userId = await directory.userId(userRef)
        const patch: { -readonly [K in keyof UpdateUser]: UpdateUser[K] } = {}
        if (changes.name !== undefined) patch.name = changes.name
        if (changes.role !== undefined) patch.role = changes.role
        if (changes.clearance !== undefined) patch.clearance = changes.clearance
        if (changes.department !== undefined) patch.departmentId = await directory.departmentId(changes.department)
        if (changes.active !== undefined) patch.active = changes.active
        const user = await directory.lore.admin.users.update(userId, patch)
        return { user, labels: await directory.labels() }
      },
      view: ({ user, labels }) => [{ kind: "message", tone: "success", text: `Updated ${user.email}` }, { kind: "fields", fields: adminUserFields(user, labels) }],
      json: (result) => result.user
    })
  }
})
