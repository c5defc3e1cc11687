export interface Page<T> {
  readonly items: ReadonlyArray<T>
  readonly nextCursor?: string | null | undefined
}

/**
 * Walks a cursor-paged list lazily: `for await (const item of paginate((cursor) => ...))`. Stops when a
 * page has no nextCursor (or repeats the one it was given, which would otherwise loop forever).
 */
export async function* paginate<T>(fetchPage: (cursor?: string) => Promise<Page<T>>): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined
  for (;;) {
    const page = await fetchPage(cursor)
    yield* page.items
    const next = page.nextCursor ?? undefined
    if (next === undefined || next === "" || next === cursor) return
    cursor = next
  }
}
