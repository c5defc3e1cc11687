import type { Drive, DriveItem, List, Site } from "@microsoft/microsoft-graph-types"
import { type SharePointClient, SharePointError } from "./Client"
import { type SharePointConfig, siteUrlPath } from "./Config"

/** One document library or OneDrive that a crawl walks: a scope of its own. */
export interface DriveRef {
  readonly id: string
  readonly name: string
  /** The site it belongs to (site groups are the site's): a OneDrive's is the user's personal site; null when unknown. */
  readonly siteId: string | null
  readonly webUrl: string | null
  /** What in sourceConfig brought it in: the site (as listed, or its id when every site is crawled) or the user's email. */
  readonly owner?: string | undefined
  /** The site's Site Pages library: its .aspx files are read as pages (canvas text), not as files. */
  readonly pages?: boolean | undefined
}

export interface Page<A> {
  readonly value: ReadonlyArray<A>
  readonly "@odata.nextLink"?: string
  readonly "@odata.deltaLink"?: string
}

const MAX_LIST_PAGES = 200

/** Every page of a Graph collection, streamed: at most MAX_LIST_PAGES pages. */
export async function* pagesOf<A>(client: SharePointClient, first: string): AsyncGenerator<ReadonlyArray<A>> {
  let link: string | undefined = first
  for (let pages = 0; link && pages < MAX_LIST_PAGES; pages++) {
    const page: Page<A> = await client.graph<Page<A>>(link)
    yield page.value ?? []
    link = page["@odata.nextLink"]
  }
}

/** The Graph path of a configured site: by id, or by its URL (`/sites/{hostname}:{path}`). */
export const sitePath = (site: string, config: SharePointConfig) => {
  const path = siteUrlPath(site, config.sharepointHost)
  return path === null ? `/v1.0/sites/${encodeURIComponent(site)}` : `/v1.0/sites/${new URL(config.sharepointHost).hostname}:${path}`
}

const driveRef = (drive: Drive, site: Site | null, owner: string, extra: { readonly siteId?: string | null; readonly pages?: boolean } = {}): DriveRef => ({
  id: drive.id!,
  name: site ? `${site.displayName ?? site.name ?? site.id}: ${drive.name ?? drive.id}` : `OneDrive: ${drive.owner?.user?.displayName ?? drive.name ?? drive.id}`,
  siteId: site?.id ?? extra.siteId ?? null,
  webUrl: drive.webUrl ?? null,
  owner,
  ...(extra.pages ? { pages: true } : {})
})

/**
 * A site's Site Pages library (list template webPageLibrary) as a drive, or null when it has none. Graph's
 * `/sites/{id}/drives` lists document libraries only; pages are list items of this library, each an .aspx driveItem
 * whose permissions are the page's, inherited as SharePoint inherits them.
 */
const sitePagesDrive = async (client: SharePointClient, site: Site): Promise<Drive | null> => {
  const siteId = encodeURIComponent(site.id!)
  for await (const lists of pagesOf<List>(client, `/v1.0/sites/${siteId}/lists?$select=id,name,displayName,list`)) {
    const library = lists.find((list) => list.list?.template === "webPageLibrary")
    if (!library?.id) continue
    try {
      return await client.graph<Drive>(`/v1.0/sites/${siteId}/lists/${encodeURIComponent(library.id)}/drive`)
    } catch (error) {
      if (error instanceof SharePointError && error.status === 404) return null
      throw error
    }
  }
  return null
}

/** The sites a connection covers: those listed, or every site Graph's site search finds (absent `sites`). */
export async function* sitesOf(client: SharePointClient, config: SharePointConfig): AsyncGenerator<{ readonly site: Site | null; readonly key: string; readonly error?: unknown }> {
  if (config.sites.length === 0) {
    for await (const sites of pagesOf<Site>(client, "/v1.0/sites?search=*")) for (const site of sites) if (site.id) yield { site, key: site.id }
    return
  }
  for (const key of config.sites) {
    try {
      yield { site: await client.graph<Site>(sitePath(key, config)), key }
    } catch (error) {
      yield { site: null, key, error }
    }
  }
}

/**
 * The drives a crawl walks, in a stable order: each site's document libraries and its Site Pages library, then each
 * chosen user's OneDrive.
 * What cannot be read is returned as a failure beside them (the others are still crawled).
 */
export const resolveDrives = async (client: SharePointClient, config: SharePointConfig) => {
  const drives: Array<DriveRef> = []
  const failures: Array<{ key: string; error: unknown }> = []
  for await (const found of sitesOf(client, config)) {
    if (!found.site) {
      failures.push({ key: found.key, error: found.error })
      continue
    }
    try {
      const ofSite: Array<DriveRef> = []
      for await (const page of pagesOf<Drive>(client, `/v1.0/sites/${encodeURIComponent(found.site.id!)}/drives`)) {
        for (const drive of page) if (drive.id) ofSite.push(driveRef(drive, found.site, found.key))
      }
      drives.push(...ofSite)
    } catch (error) {
      failures.push({ key: found.key, error })
      continue
    }
    try {
      const pages = await sitePagesDrive(client, found.site)
      if (pages?.id && !drives.some((drive) => drive.id === pages.id)) drives.push(driveRef(pages, found.site, found.key, { pages: true }))
    } catch (error) {
      // The site's libraries are still crawled; the failure keeps its pages (nothing of the site is retired meanwhile).
      if (!(error instanceof SharePointError && error.status === 404)) failures.push({ key: found.key, error })
    }
  }
  for (const user of config.users) {
    try {
      const drive = await client.graph<Drive>(`/v1.0/users/${encodeURIComponent(user)}/drive`)
      if (!drive.id) continue
      // The OneDrive's personal site (on the -my host): its site groups may be named in the files' permissions.
      const root = await client.graph<DriveItem>(`/v1.0/drives/${encodeURIComponent(drive.id)}/root?$select=id,parentReference`)
      drives.push(driveRef(drive, null, user, { siteId: root.parentReference?.siteId ?? null }))
    } catch (error) {
      failures.push({ key: user, error })
    }
  }
  return { drives, failures }
}
