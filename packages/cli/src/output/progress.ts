// Its own module so the Ink renderer (ink.tsx) and present.ts, which loads it, do not import each other.

/** How far long work has come: a terminal draws a bar when `total` is known, else a count. */
export interface Progress {
  readonly done: number
  readonly total: number | null
  /** What is counted, singular ("document"). */
  readonly unit: string
}
export type ProgressReporter = (progress: Progress) => void
