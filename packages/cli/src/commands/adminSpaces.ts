import type { AddGrant as Grant, AdminKnowledgeSpace, GrantKind, SpaceGrant, SpaceRelation as GrantRelation } from "@lore/sdk"
import type { Command } from "commander"
import { handler } from "../command"
import type { Runtime } from "../context"
import { CliError, ExitCode, usageError } from "../errors"
import { ask, present } from "../output/render"
import { type Cell, styled, type View } from "../output/view"
import { departmentCell, Directory, GRANT_KINDS, idCell, type Labels, oneOf, RELATIONS } from "./adminShared"

// Knowledge spaces and their grants: `lore admin spaces list|create|rm`, `lore admin grants list|add|rm`.

export interface SpaceList {
  readonly spaces: ReadonlyArray<AdminKnowledgeSpace>
  readonly labels: Labels
}

export const listSpaces = async (directory: Directory): Promise<SpaceList> => ({
  spaces: await directory.spaces(),
  labels: await directory.labels()
})

export const createSpace = async (directory: Directory, input: { readonly key: string; readonly name: string; readonly department?: string | undefined }) =>
  directory.lore.admin.spaces.create({
    key: input.key,
    name: input.name,
    ...(input.department === undefined ? {} : { departmentId: await directory.departmentId(input.department) })
  })

export const removeSpace = async (directory: Directory, space: AdminKnowledgeSpace) => {
  await directory.lore.admin.spaces.remove(space.id)
  return { id: space.id, key: space.key, removed: true as const }
}

/** A space as grant results name it. */
export interface SpaceRef {
  readonly id: string
  readonly key: string
  readonly name: string
}

const spaceRef = (space: AdminKnowledgeSpace): SpaceRef => ({ id: space.id, key: space.key, name: space.name })

export interface SpaceGrants {
  readonly space: SpaceRef
  readonly grants: ReadonlyArray<SpaceGrant>
  readonly grantsComplete: boolean
  readonly policyVersion: string
}

const grantsOf = (space: AdminKnowledgeSpace): SpaceGrants => ({
  space: spaceRef(space),
  grants: space.grants,
  grantsComplete: space.grantsComplete,
  policyVersion: space.policyVersion
})

export const listGrants = async (directory: Directory, spaceRef: string): Promise<SpaceGrants> => grantsOf(await directory.space(spaceRef))

/** A grant as typed on the command line: the subject is still an email, department name or id. */
export interface GrantSpec {
  readonly relation: GrantRelation
  readonly kind: GrantKind
  readonly subject?: string | undefined
  readonly role?: string | undefined
}

/** Checks the flags fit the kind before any request, so a wrong combination is a usage error (exit 2). */
export const grantSpec = (flags: { relation?: GrantRelation; kind?: GrantKind; subject?: string; role?: string }): GrantSpec => {
  if (!flags.relation) throw usageError(`missing --relation: pass --relation ${RELATIONS.join("|")}`)
  if (!flags.kind) throw usageError(`missing --kind: pass --kind ${GRANT_KINDS.join("|")}`)
  const { relation, kind, subject, role } = flags
  switch (kind) {
    case "ORGANIZATION":
      if (subject !== undefined || role !== undefined) throw usageError("an ORGANIZATION grant has no --subject or --role")
      return { relation, kind }
    case "ROLE":
      if (role === undefined) throw usageError("a ROLE grant needs --role (e.g. --role MANAGER or --role KNOWLEDGE_ADMIN)")
      if (subject !== undefined) throw usageError("a ROLE grant takes --role, not --subject")
      return { relation, kind, role: role.trim().toUpperCase().replace(/-/g, "_") }
    case "USER":
    case "DEPARTMENT":
    case "DEPARTMENT_MANAGERS":
      if (subject === undefined) {
        throw usageError(`a ${kind} grant needs --subject (${kind === "USER" ? "an email or user id" : "a department name or id"})`)
      }
      if (role !== undefined) throw usageError(`a ${kind} grant takes --subject, not --role`)
      return { relation, kind, subject }
  }
}

const resolveGrant = async (directory: Directory, spec: GrantSpec): Promise<Grant> => {
  if (spec.kind === "ORGANIZATION") return { relation: spec.relation, kind: spec.kind }
  if (spec.kind === "ROLE") return { relation: spec.relation, kind: spec.kind, role: spec.role! }
  const subjectId = spec.kind === "USER" ? await directory.userId(spec.subject!) : await directory.departmentId(spec.subject!)
  return { relation: spec.relation, kind: spec.kind, subjectId }
}

export interface GrantChange extends SpaceGrants {
  readonly grant: Grant
  readonly change: "added" | "removed"
}

/** Adds or removes one grant, then reads the space back so the result shows the grants now in force. */
export const changeGrant = async (directory: Directory, change: "add" | "remove", spaceRef: string, spec: GrantSpec): Promise<GrantChange> => {
  const [space, grant] = await Promise.all([directory.space(spaceRef), resolveGrant(directory, spec)])
  if (change === "add") await directory.lore.admin.spaces.addGrant(space.id, grant)
  else await directory.lore.admin.spaces.removeGrant(space.id, grant)
  const after = (await directory.lore.admin.spaces.list()).find((candidate) => candidate.id === space.id) ?? { ...space, grants: [] }
  return { ...grantsOf(after), grant, change: change === "add" ? "added" : "removed" }
}

const audienceTone = { ORGANIZATION: "accent", DEPARTMENT: undefined, RESTRICTED: "warning", NONE: "muted" } as const

const spacesView = ({ spaces, labels }: SpaceList): View => [
  {
    kind: "table",
    columns: [{ header: "key" }, { header: "name" }, { header: "department" }, { header: "audience" }, { header: "grants", align: "right" }, { header: "id" }],
    rows: spaces.map((space) => [
      styled(space.key, "accent"),
      space.name,
      departmentCell(labels, space.departmentId),
      styled(space.audienceMode, audienceTone[space.audienceMode]),
      String(space.grants.length),
      idCell(space.id)
    ]),
    empty: "No knowledge spaces."
  }
]

const subjectCell = (grant: SpaceGrant): Cell => (grant.effective ? grant.subjectLabel : styled(`${grant.subjectLabel} (not effective)`, "warning"))

const grantsTable = (grants: ReadonlyArray<SpaceGrant>): View[number] => ({
  kind: "table",
  columns: [{ header: "relation" }, { header: "kind" }, { header: "subject" }, { header: "subject id" }],
  rows: grants.map((grant) => [grant.relation, grant.kind, subjectCell(grant), idCell(grant.subjectId ?? grant.role ?? "-")]),
  empty: "No grants."
})

const grantsView = (result: SpaceGrants): View => [
  { kind: "heading", text: `Grants on ${result.space.name} (${result.space.key})` },
  grantsTable(result.grants),
  ...(result.grantsComplete ? [] : [{ kind: "message" as const, tone: "warning" as const, text: "Some grants could not be listed (grantsComplete: false)." }])
]

const describeGrant = (grant: Grant, spec: GrantSpec) =>
  grant.kind === "ORGANIZATION" ? "the whole organization" : grant.kind === "ROLE" ? `role ${grant.role}` : `${grant.kind} ${spec.subject}`

const createdView = (space: AdminKnowledgeSpace): View => [
  { kind: "message", tone: "success", text: `Created knowledge space ${space.name} (${space.key})` },
  {
    kind: "fields",
    fields: [
      ["Id", styled(space.id, "muted")],
      ["Audience", space.audienceMode],
      ["Grants", String(space.grants.length)]
    ]
  },
  { kind: "message", tone: "muted", text: `Give others access with: lore admin grants add ${space.key} --relation viewer --kind ...` }
]

/** Deleting a space asks first: on a terminal by typing its key; elsewhere only with --yes. */
const confirmRemoval = async (runtime: Runtime, space: AdminKnowledgeSpace) => {
  let answer: string
  try {
    answer = await ask(runtime, { label: `Delete knowledge space ${space.name} (${space.key}) and everything in it? Type its key to confirm:`, flag: "--yes" })
  } catch (error) {
    if (error instanceof CliError && error.exitCode === ExitCode.usage) answer = ""
    else throw error
  }
  if (answer !== space.key) throw new CliError(ExitCode.unexpected, "CANCELLED", `not confirmed; knowledge space ${space.key} was not deleted`)
}

interface GrantFlags {
  readonly relation?: GrantRelation
  readonly kind?: GrantKind
  readonly subject?: string
  readonly role?: string
}

const grantOptions = (command: Command) =>
  command
    .argument("<space>", "knowledge space id or key")
    .option("--relation <relation>", RELATIONS.join(", "), oneOf(RELATIONS))
    .option("--kind <kind>", GRANT_KINDS.join(", "), oneOf(GRANT_KINDS))
    .option("--subject <subject>", "USER: email or id; DEPARTMENT, DEPARTMENT_MANAGERS: department name or id")
    .option("--role <role>", "ROLE: a user role (EMPLOYEE, MANAGER, ADMIN) or platform role (e.g. KNOWLEDGE_ADMIN)")

export const registerSpaceCommands = (admin: Command) => {
  const spaces = admin.command("spaces").description("knowledge spaces (see 'lore admin grants' for who may use them)")

  spaces
    .command("list")
    .description("every knowledge space, with its audience and number of grants")
    .action(
      handler(async (runtime) => {
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, { progress: "Loading knowledge spaces", run: () => listSpaces(directory), view: spacesView, json: (result) => result.spaces })
      })
    )

  spaces
    .command("create")
    .description("create a knowledge space (no grants yet: add them with 'lore admin grants add')")
    .argument("<key>", "short unique key: lowercase letters, digits and dashes (e.g. eng-handbook)")
    .requiredOption("--name <name>", "display name")
    .option("--department <department>", "owning department id or name")
    .action(
      handler(async (runtime, command) => {
        const [key] = command.processedArgs as [string]
        const { name, department } = command.opts<{ name: string; department?: string }>()
        if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(key)) throw usageError(`'${key}' is not a valid key: lowercase letters, digits and dashes, at most 63`)
        if (name.trim() === "") throw usageError("--name is empty")
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, { progress: `Creating ${key}`, run: () => createSpace(directory, { key, name: name.trim(), department }), view: createdView })
      })
    )

  spaces
    .command("rm")
    .alias("remove")
    .description("delete a knowledge space and everything in it (asks first; --yes in scripts)")
    .argument("<space>", "knowledge space id or key")
    .option("-y, --yes", "delete without asking")
    .action(
      handler(async (runtime, command) => {
        const [ref] = command.processedArgs as [string]
        const { yes } = command.opts<{ yes?: boolean }>()
        if (!yes && !runtime.canPrompt) {
          throw usageError(`refusing to delete knowledge space ${ref} without confirmation: cannot prompt (stdin is not a terminal or CI is set); pass --yes`)
        }
        const directory = new Directory(runtime.client({ requireToken: true }))
        const space = await directory.space(ref)
        if (!yes) await confirmRemoval(runtime, space)
        await present(runtime, {
          progress: `Deleting ${space.key}`,
          run: () => removeSpace(directory, space),
          view: (result) => [{ kind: "message", tone: "success", text: `Deleted knowledge space ${result.key}` }]
        })
      })
    )

  const grants = admin.command("grants").description("who may view, contribute to, curate or manage a knowledge space")

  grants
    .command("list")
    .description("the grants on a knowledge space")
    .argument("<space>", "knowledge space id or key")
    .action(
      handler(async (runtime, command) => {
        const [ref] = command.processedArgs as [string]
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, { progress: `Loading the grants on ${ref}`, run: () => listGrants(directory, ref), view: grantsView })
      })
    )

  for (const change of ["add", "rm"] as const) {
    const sub = grantOptions(
      grants
        .command(change)
        .description(change === "add" ? "grant a relation on a knowledge space" : "remove a grant (same flags as when it was added)")
    )
    if (change === "rm") sub.alias("remove")
    sub.addHelpText(
      "after",
      change === "add"
        ? "\nExamples:\n  lore admin grants add eng --relation viewer --kind ORGANIZATION\n" +
            "  lore admin grants add eng --relation contributor --kind DEPARTMENT --subject Engineering\n" +
            "  lore admin grants add eng --relation curator --kind USER --subject ada@example.com\n" +
            "  lore admin grants add eng --relation viewer --kind ROLE --role MANAGER"
        : ""
    )
    sub.action(
      handler(async (runtime, command) => {
        const [ref] = command.processedArgs as [string]
        const spec = grantSpec(command.opts<GrantFlags>())
        const directory = new Directory(runtime.client({ requireToken: true }))
        await present(runtime, {
          progress: change === "add" ? "Adding the grant" : "Removing the grant",
          run: () => changeGrant(directory, change === "add" ? "add" : "remove", ref, spec),
          view: (result) => [
            {
              kind: "message",
              tone: "success",
              text:
                result.change === "added"
                  ? `Granted ${result.grant.relation} on ${result.space.key} to ${describeGrant(result.grant, spec)}`
                  : `Removed ${result.grant.relation} on ${result.space.key} from ${describeGrant(result.grant, spec)}`
            },
            ...grantsView(result)
          ]
        })
      })
    )
  }
}
