import type { DriveItem, SitePage, StandardWebPart, TextWebPart, WebPart } from "@microsoft/microsoft-graph-types"
import type { NativeAcl, SourceDocument } from "../Kind"
import { storageToText } from "../confluence/Render"
import { type SharePointClient, SharePointError } from "./Client"
import type { DriveRef } from "./Drives"

/** A page's text at most (a page is prose; past this it is cut, not refused). */
const MAX_PAGE_CHARS = 2_000_000
const MAX_WEB_PARTS = 2000

/** Whether a Site Pages library item is a page (an .aspx file) rather than an image or file kept beside the pages. */
export const isSitePage = (drive: Pick<DriveRef, "pages">, item: Pick<DriveItem, "name">) => drive.pages === true && /\.aspx$/i.test(item.name ?? "")

/**
 * A modern page's web parts as HTML, in reading order (each horizontal section's columns, then the vertical
 * section): text web parts' own HTML; other web parts (images, quick links, news...) by their title, description
 * and the plain texts SharePoint itself indexes (`serverProcessedContent.searchablePlainTexts`).
 */
export const canvasHtml = (page: Pick<SitePage, "canvasLayout" | "webParts">): string => {
  const parts: Array<WebPart> = []
  for (const section of page.canvasLayout?.horizontalSections ?? []) for (const column of section.columns ?? []) parts.push(...(column.webparts ?? []))
  parts.push(...(page.canvasLayout?.verticalSection?.webparts ?? []))
  if (parts.length === 0) parts.push(...(page.webParts ?? []))
  const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  const html: Array<string> = []
  for (const part of parts.slice(0, MAX_WEB_PARTS)) {
    const text = part as TextWebPart
    if (typeof text.innerHtml === "string") {
      html.push(text.innerHtml)
      continue
    }
    const data = (part as StandardWebPart).data
    for (const value of [data?.title, data?.description, ...(data?.serverProcessedContent?.searchablePlainTexts ?? []).map((pair) => pair.value)]) {
      if (typeof value === "string" && value.trim()) html.push(`<p>${escape(value)}</p>`)
    }
  }
  return html.join("\n").slice(0, MAX_PAGE_CHARS)
}

/**
 * A page of a site's Site Pages library as a document: its canvas (`GET /sites/{site}/pages/{id}/microsoft.graph.sitePage
 * ?$expand=canvasLayout`, the page's id being its list item's unique id) rendered to Markdown-like text with its
 * headings, under the page's own permissions (the driveItem's, as SharePoint inherits them). "SKIP" for an .aspx
 * Graph does not know as a modern page (a classic wiki or web part page).
 */
export const pageDocumentOf = async (client: SharePointClient, drive: DriveRef, item: DriveItem, acl: NativeAcl, externalId: string): Promise<SourceDocument | "SKIP"> => {
  if (!drive.siteId) return "SKIP"
  let pageId = item.sharepointIds?.listItemUniqueId ?? null
  if (!pageId) {
    const found = await client.graph<DriveItem>(`/v1.0/drives/${encodeURIComponent(drive.id)}/items/${encodeURIComponent(item.id!)}?$select=id,sharepointIds`)
    pageId = found.sharepointIds?.listItemUniqueId ?? null
  }
  if (!pageId) return "SKIP"
  let page: SitePage
  try {
    page = await client.graph<SitePage>(`/v1.0/sites/${encodeURIComponent(drive.siteId)}/pages/${encodeURIComponent(pageId)}/microsoft.graph.sitePage?$expand=canvasLayout`)
  } catch (error) {
    if (error instanceof SharePointError && (error.status === 404 || error.status === 400)) return "SKIP"
    throw error
  }
  const name = (item.name ?? page.name ?? pageId).replace(/\.aspx$/i, "")
  const title = page.title?.trim() || name
  const url = page.webUrl ?? item.webUrl
  return {
    externalId,
    title,
    bytes: new TextEncoder().encode(storageToText(title, [page.description ? `<p>${page.description.replace(/</g, "&lt;")}</p>` : "", canvasHtml(page)].join("\n"))),
    fileName: `${name.replace(/[\\/:*?"<>|\x00-\x1f]/g, "_").slice(0, 120) || "page"}.md`,
    mediaType: "text/markdown",
    url: typeof url === "string" && /^https:\/\//.test(url) ? url : null,
    classification: "INTERNAL",
    acl
  }
}
