import type { AdminUser, Clearance, Department, PlatformRole, RoleList, UpdateUser, UserPermissions, UserRole } from "@lore/sdk"
import type { Command } from "commander"
import { handler } from "../command"
import { usageError } from "../errors"
import { present } from "../output/render"
import { formatDate, formatTime, styled, type View } from "../output/view"
import {
  activeCell,
  CLEARANCES,
  departmentCell,
  Directory,
  idCell,
  type Labels,
  listCell,
  oneOf,
  parseOneOf,
  PLATFORM_ROLES,
  userCell,
  USER_ROLES
} from "./adminShared"

// Users, departments and platform roles: `lore admin users|departments|roles ...`.

// ---- users ----------------------------------------------------------------------------------------

export interface UserList {
  readonly users: ReadonlyArray<AdminUser>
  readonly labels: Labels
}

export const listUsers = async (directory: Directory): Promise<UserList> => ({
  users: await directory.users(),
  labels: await directory.labels()
})

/** What `admin users update` may change; `department` is an id or a name. */
export interface UserChanges {
  readonly name?: string | undefined
  readonly role?: UserRole | undefined
  readonly clearance?: Clearance | undefined
  readonly department?: string | undefined
  readonly active?: boolean | undefined
}

export interface UpdatedUser {
  readonly user: AdminUser
  readonly labels: Labels
}

export const updateUser = async (directory: Directory, userRef: string, changes: UserChanges): Promise<UpdatedUser> => {
  const userId = await directory.userId(userRef)
  const patch: { -readonly [K in keyof UpdateUser]: UpdateUser[K] } = {}
  if (changes.name !== undefined) patch.name = changes.name
  if (changes.role !== undefined) patch.role = changes.role
  if (changes.clearance !== undefined) patch.clearance = changes.clearance
  if (changes.department !== undefined) patch.departmentId = await directory.departmentId(changes.department)
  if (changes.active !== undefined) patch.active = changes.active
  const user = await directory.lore.admin.users.update(userId, patch)
  return { user, labels: await directory.labels() }
}

export interface UserPermissionsResult {
  readonly user: AdminUser
  readonly permissions: UserPermissions
}

export const userPermissions = async (directory: Directory, userRef: string): Promise<UserPermissionsResult> => {
  const user = await directory.user(userRef)
  return { user, permissions: await directory.lore.admin.users.permissions(user.id) }
}

const usersView = ({ users, labels }: UserList): View => [
  {
    kind: "table",
    columns: ["email", "name", "role", "clearance", "department", "status", "platform roles", "id"].map((header) => ({ header })),
    rows: users.map((user) => [
      user.email,
      user.name,
      user.role,
      user.clearance,
      departmentCell(labels, user.departmentId),
      activeCell(user.active),
      listCell(user.platformRoles),
      idCell(user.id)
    ]),
    empty: "No users."
  }
]

const updatedView = ({ user, labels }: UpdatedUser): View => [
  { kind: "message", tone: "success", text: `Updated ${user.email}` },
  {
    kind: "fields",
    fields: [
      ["Name", styled(user.name, "accent")],
      ["Email", user.email],
      ["Role", user.role],
      ["Clearance", user.clearance],
      ["Department", departmentCell(labels, user.departmentId)],
      ["Status", activeCell(user.active)],
      ["Platform roles", listCell(user.platformRoles)],
      ["User id", styled(user.id, "muted")]
    ]
  }
]

const permissionsView = ({ user, permissions }: UserPermissionsResult): View => [
  { kind: "heading", text: `Permissions of ${user.name} <${user.email}>` },
  {
    kind: "table",
    columns: [{ header: "permission" }, { header: "state" }],
    rows: Object.entries(permissions.permissions)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, state]) => [name, styled(state, state === "ALLOWED" ? "success" : "muted")]),
    empty: "No permissions."
  },
  { kind: "fields", fields: [["Evaluated", formatTime(permissions.evaluatedAt)]] }
]

// ---- departments ----------------------------------------------------------------------------------

export interface DepartmentList {
  readonly departments: ReadonlyArray<Department>
  readonly labels: Labels
}

export const listDepartments = async (directory: Directory): Promise<DepartmentList> => ({
  departments: await directory.departments(),
  labels: await directory.labels()
})

export const createDepartment = (directory: Directory, name: string) => directory.lore.admin.departments.create(name)

export const renameDepartment = async (directory: Directory, departmentRef: string, name: string) =>
  directory.lore.admin.departments.rename(await directory.departmentId(departmentRef), name)

export const changeManager = async (directory: Directory, change: "add" | "remove", departmentRef: string, userRef: string) => {
  const [departmentId, userId] = await Promise.all([directory.departmentId(departmentRef), directory.userId(userRef)])
  return change === "add"
    ? directory.lore.admin.departments.addManager(departmentId, userId)
    : directory.lore.admin.departments.removeManager(departmentId, userId)
}

const departmentsView = ({ departments, labels }: DepartmentList): View => [
  {
    kind: "table",
    columns: [{ header: "name" }, { header: "members", align: "right" }, { header: "managers" }, { header: "created" }, { header: "id" }],
    rows: departments.map((department) => [
      department.name,
      String(department.memberCount),
      listCell(department.managerUserIds.map((id) => userCell(labels, id))),
      formatDate(department.createdAt),
      idCell(department.id)
    ]),
    empty: "No departments."
  }
]

const departmentView = (message: (department: Department) => string) => (department: Department): View => [
  { kind: "message", tone: "success", text: message(department) },
  {
    kind: "fields",
    fields: [
      ["Id", styled(department.id, "muted")],
      ["Members", String(department.memberCount)],
      ["Manager ids", listCell(department.managerUserIds)]
    ]
  }
]

// ---- platform roles -------------------------------------------------------------------------------

export interface RoleListResult {
  readonly roles: RoleList
  readonly labels: Labels
}

export const listRoles = async (directory: Directory): Promise<RoleListResult> => {
  const [roles, labels] = await Promise.all([directory.lore.admin.roles.list(), directory.labels()])
  return { roles, labels }
}

export const changeRoleMember = async (directory: Directory, change: "add" | "remove", role: PlatformRole, userRef: string) => {
  const userId = await directory.userId(userRef)
  if (change === "add") {
    await directory.lore.admin.roles.addMember(role, userId)
    return { role, userId, added: true as const }
  }
  await directory.lore.admin.roles.removeMember(role, userId)
  return { role, userId, removed: true as const }
}

const rolesView = ({ roles, labels }: RoleListResult): View => [
  {
    kind: "table",
    columns: [{ header: "role" }, { header: "members" }],
    rows: roles.roles.map((entry) => [entry.role, listCell(entry.assignees.map((id) => userCell(labels, id)))]),
    empty: "No roles."
  },
  { kind: "fields", fields: [["Policy version", styled(roles.policyVersion, "muted")]] }
]

// ---- commands -------------------------------------------------------------------------------------

interface UpdateFlags {
  readonly name?: string
  readonly role?: UserRole
  readonly clearance?: Clearance
  readonly department?: string
  readonly active?: boolean
  readonly inactive?: boolean
}

const changesFrom = (flags: UpdateFlags): UserChanges => {
  if (flags.active && flags.inactive) throw usageError("pass either --active or --inactive, not both")
  const changes: UserChanges = {
    name: flags.name,
    role: flags.role,
    clearance: flags.clearance,
    department: flags.department,
    active: flags.active ? true : flags.inactive ? false : undefined
  }
  if (Object.values(changes).every((value) => value === undefined)) {
    throw usageError("nothing to change: pass --name, --role, --clearance, --department, --active or --inactive")
  }
  if (changes.name !== undefined && changes.name.trim() === "") throw usageError("--name is empty")
  return changes
}

export const registerUserCommands = (admin: Command) => {
  const users = admin.command("users").description("list and change users, see their permissions")

  users
    .command("list")
    .description("every user of the organization")
    .action(
      handler(async (runtime) => {
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, { progress: "Loading users", run: () => listUsers(directory), view: usersView, json: (result) => result.users })
      })
    )

  users
    .command("update")
    .description("change a user's name, role, clearance, department or status (deactivating ends their tokens)")
    .argument("<user>", "email or user id")
    .option("--name <name>", "display name")
    .option("--role <role>", `user role: ${USER_ROLES.join(", ")}`, oneOf(USER_ROLES))
    .option("--clearance <clearance>", `highest classification the user may read: ${CLEARANCES.join(", ")}`, oneOf(CLEARANCES))
    .option("--department <department>", "department id or name")
    .option("--active", "reactivate the user")
    .option("--inactive", "deactivate the user (their tokens and sessions stop working at once)")
    .action(
      handler(async (runtime, command) => {
        const [userRef] = command.processedArgs as [string]
        const changes = changesFrom(command.opts<UpdateFlags>())
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, {
          progress: `Updating ${userRef}`,
          run: () => updateUser(directory, userRef, changes),
          view: updatedView,
          json: (result) => result.user
        })
      })
    )

  users
    .command("permissions")
    .description("every permission and whether the user has it")
    .argument("<user>", "email or user id")
    .action(
      handler(async (runtime, command) => {
        const [userRef] = command.processedArgs as [string]
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, {
          progress: `Evaluating the permissions of ${userRef}`,
          run: () => userPermissions(directory, userRef),
          view: permissionsView,
          json: (result) => result.permissions
        })
      })
    )

  const departments = admin.command("departments").description("departments and their managers")

  departments
    .command("list")
    .description("every department, with member counts and managers")
    .action(
      handler(async (runtime) => {
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, {
          progress: "Loading departments",
          run: () => listDepartments(directory),
          view: departmentsView,
          json: (result) => result.departments
        })
      })
    )

  departments
    .command("create")
    .description("create a department")
    .argument("<name>", "the department's name (unique)")
    .action(
      handler(async (runtime, command) => {
        const [name] = command.processedArgs as [string]
        if (name.trim() === "") throw usageError("the department name is empty")
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, {
          progress: `Creating department ${name}`,
          run: () => createDepartment(directory, name.trim()),
          view: departmentView((created) => `Created department ${created.name}`)
        })
      })
    )

  departments
    .command("rename")
    .description("rename a department")
    .argument("<department>", "department id or current name")
    .argument("<new-name>", "the new name")
    .action(
      handler(async (runtime, command) => {
        const [departmentRef, name] = command.processedArgs as [string, string]
        if (name.trim() === "") throw usageError("the new name is empty")
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, {
          progress: `Renaming ${departmentRef}`,
          run: () => renameDepartment(directory, departmentRef, name.trim()),
          view: departmentView((d) => `Renamed ${departmentRef} to ${d.name}`)
        })
      })
    )

  const managers = departments.command("managers").description("add or remove a department's managers")
  for (const change of ["add", "remove"] as const) {
    const sub = managers
      .command(change)
      .description(change === "add" ? "make a user a manager of the department" : "stop a user managing the department")
      .argument("<department>", "department id or name")
      .argument("<user>", "email or user id")
    if (change === "remove") sub.alias("rm")
    sub.action(
      handler(async (runtime, command) => {
        const [departmentRef, userRef] = command.processedArgs as [string, string]
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, {
          progress: `${change === "add" ? "Adding" : "Removing"} ${userRef}`,
          run: () => changeManager(directory, change, departmentRef, userRef),
          view: departmentView((d) => (change === "add" ? `${userRef} now manages ${d.name}` : `${userRef} no longer manages ${d.name}`))
        })
      })
    )
  }

  const roles = admin.command("roles").description(`platform roles (${PLATFORM_ROLES.join(", ")}) and who holds them`)

  roles
    .command("list")
    .description("every platform role and its members")
    .action(
      handler(async (runtime) => {
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, { progress: "Loading roles", run: () => listRoles(directory), view: rolesView, json: (result) => result.roles })
      })
    )

  for (const change of ["add", "remove"] as const) {
    const sub = roles
      .command(change)
      .description(change === "add" ? "give a user a platform role" : "take a platform role from a user")
      .argument("<role>", PLATFORM_ROLES.join(", "))
      .argument("<user>", "email or user id")
    if (change === "remove") sub.alias("rm")
    sub.action(
      handler(async (runtime, command) => {
        const [rawRole, userRef] = command.processedArgs as [string, string]
        const role = parseOneOf(PLATFORM_ROLES, rawRole, "platform role")
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, {
          progress: `${change === "add" ? "Adding" : "Removing"} ${role}`,
          run: () => changeRoleMember(directory, change, role, userRef),
          view: () => [{ kind: "message", tone: "success", text: change === "add" ? `${userRef} now holds ${role}` : `${userRef} no longer holds ${role}` }]
        })
      })
    )
  }
}
