/**
 * Block maintenance's merges of appended runs (docs/decisions.md "Search under steady ingestion: merged runs").
 * The packer appends each batch's postings of a term (in a partition) as a run of blocks of its own; under steady
 * ingestion a common term gains a small run a second, and search reads every run whose top impact is above its
 * threshold, nearly whole. Maintenance merges them, size-tiered as a log-structured merge tree does: runs of
 * about the same size are merged once there are RUN_FANOUT of them, so a posting is rewritten about once per
 * tier (log4 of the run sizes) and a term keeps a few runs per tier, each cut in impact order like a rebuilt
 * list, of which search reads only the blocks above its threshold.
 */
import { POSTING_BYTES } from "./PackedRanking"

/** Runs of one size tier merged into one once there are this many. */
export const RUN_FANOUT = 4

/** Runs smaller than this are all of the first tier (the packer's runs: a second's postings of a term). */
const FIRST_TIER_POSTINGS = 32

/** A run as stored: its id and its postings' count. */
export interface RunSize {
  readonly run: string
  readonly postings: number
}

const tierOf = (postings: number) => Math.max(0, Math.floor(Math.log(Math.max(postings, 1) / FIRST_TIER_POSTINGS) / Math.log(RUN_FANOUT)))

/**
 * Which runs to merge: the lowest tier holding RUN_FANOUT runs is merged into one run, which joins its own tier
 * (merged again there when that tier is then full), and so on up. Each group is merged into one run.
 */
export const mergePlan = (runs: ReadonlyArray<RunSize>): ReadonlyArray<ReadonlyArray<string>> => {
  interface Entry { readonly runs: ReadonlyArray<string>; readonly postings: number; readonly group?: ReadonlyArray<string> }
  const tiers = new Map<number, Array<Entry>>()
  const place = (entry: Entry) => {
    const tier = tierOf(entry.postings)
    tiers.set(tier, [...(tiers.get(tier) ?? []), entry])
  }
  for (const run of runs) place({ runs: [run.run], postings: run.postings })
  const groups: Array<ReadonlyArray<string>> = []
  for (;;) {
    const full = [...tiers.entries()].filter(([, entries]) => entries.length >= RUN_FANOUT).sort(([a], [b]) => a - b)[0]
    if (!full) return groups
    const [tier, entries] = full
    tiers.delete(tier)
    // A run merged again in a higher tier is merged once: its earlier group becomes part of this one.
    for (const entry of entries) if (entry.group) groups.splice(groups.indexOf(entry.group), 1)
    const group = entries.flatMap((entry) => entry.runs)
    groups.push(group)
    place({ runs: group, postings: entries.reduce((sum, entry) => sum + entry.postings, 0), group })
  }
}

/** Posting `index` of `block` precedes posting `other` of `otherBlock` in a run's order: impact descending, then chunk id. */
const before = (block: Uint8Array, view: DataView, at: number, otherBlock: Uint8Array, otherView: DataView, otherAt: number) => {
  const impact = view.getFloat32(at + 16)
  const otherImpact = otherView.getFloat32(otherAt + 16)
  if (impact !== otherImpact) return impact > otherImpact
  for (let i = 0; i < 16; i++) {
    const a = block[at + i]!
    const b = otherBlock[otherAt + i]!
    if (a !== b) return a < b
  }
  return true
}

/** A merged run's block: its top impact, postings and packed bytes (PackedRanking's layout). */
export interface MergedBlock {
  readonly topImpact: number
  readonly postings: number
  readonly packed: Uint8Array
}

/**
 * The runs' postings merged into one run in the order the packer writes (impact descending, then chunk id), cut
 * every `blockSize` postings. Each run is its blocks' bytes in that order already, so this is a k-way merge.
 */
export const mergeRuns = (runs: ReadonlyArray<Uint8Array>, blockSize: number): ReadonlyArray<MergedBlock> => {
  const views = runs.map((run) => new DataView(run.buffer, run.byteOffset, run.byteLength))
  const positions = runs.map(() => 0)
  const total = runs.reduce((sum, run) => sum + Math.floor(run.byteLength / POSTING_BYTES), 0)
  const out = new Uint8Array(total * POSTING_BYTES)
  for (let written = 0; written < total; written++) {
    let best = -1
    for (let r = 0; r < runs.length; r++) {
      if (positions[r]! + POSTING_BYTES > runs[r]!.byteLength) continue
      if (best < 0 || !before(runs[best]!, views[best]!, positions[best]!, runs[r]!, views[r]!, positions[r]!)) best = r
    }
    out.set(runs[best]!.subarray(positions[best]!, positions[best]! + POSTING_BYTES), written * POSTING_BYTES)
    positions[best]! += POSTING_BYTES
  }
  const view = new DataView(out.buffer)
  const blocks: Array<MergedBlock> = []
  for (let start = 0; start < total; start += blockSize) {
    const postings = Math.min(blockSize, total - start)
    blocks.push({ topImpact: view.getFloat32(start * POSTING_BYTES + 16), postings, packed: out.subarray(start * POSTING_BYTES, (start + postings) * POSTING_BYTES) })
  }
  return blocks
}

/**
 * How many postings a block of an appended run holds: about the share of the run that a rebuilt block is of the
 * rebuilt list, and no less than an eighth of a block (the packer's rule for its own runs, `appended_block`).
 */
export const appendedBlockSize = (blockPostings: number, runPostings: number, rebuilt: number) =>
  Math.min(blockPostings, Math.max(Math.ceil(blockPostings / 8), Math.ceil((blockPostings * runPostings) / Math.max(rebuilt, 1))))
