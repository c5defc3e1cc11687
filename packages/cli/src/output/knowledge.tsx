import { ConfirmInput, ProgressBar, Spinner } from "@inkjs/ui"
import { Box, render, Static, Text, useApp } from "ink"
import { useEffect, useState } from "react"
import type { AddEvents, AddResult } from "../commands/sources"
import { formatBytes } from "./files"
import { highlightSegments } from "./highlight"
import { ViewBlocks } from "./ink"
import type { RichBlock, RichView, Span } from "./rich"
import type { Tone } from "./view"

// Loaded only when stdout is a terminal (rich.ts), like ink.tsx: pipes and --json never load React.

const toneColor: Record<Tone, string> = { success: "green", warning: "yellow", error: "red", muted: "gray", accent: "cyan" }

const SpanText = ({ span }: { readonly span: Span }) => (
  <Text bold={span.bold ?? false} {...(span.tone === "muted" ? { dimColor: true } : span.tone ? { color: toneColor[span.tone] } : {})}>
    {span.text}
  </Text>
)

const RichBlockView = ({ block }: { readonly block: RichBlock }) => {
  switch (block.kind) {
    case "line":
      return (
        <Text>
          {block.spans.map((span, index) => (
            <SpanText key={index} span={span} />
          ))}
        </Text>
      )
    case "highlighted":
      return (
        <Box paddingLeft={block.indent ?? 0}>
          <Text>
            {highlightSegments(block.text, block.highlights).map((segment, index) =>
              segment.hit ? (
                <Text key={index} bold color="yellow">
                  {segment.text}
                </Text>
              ) : (
                <Text key={index}>{segment.text}</Text>
              )
            )}
          </Text>
        </Box>
      )
    case "blank":
      return <Text> </Text>
    default:
      return (
        <Box marginTop={block.kind === "heading" ? 1 : 0}>
          <ViewBlocks view={[block]} />
        </Box>
      )
  }
}

export const RichBlocks = ({ view }: { readonly view: RichView }) => (
  <Box flexDirection="column">
    {view.map((block, index) => (
      <RichBlockView key={index} block={block} />
    ))}
  </Box>
)

type Outcome<T> = { readonly value: T } | { readonly error: unknown }

function RichTask<T>(props: { readonly label: string; readonly run: () => Promise<T>; readonly view: (result: T) => RichView; readonly onOutcome: (outcome: Outcome<T>) => void }) {
  const { exit } = useApp()
  const [view, setView] = useState<RichView | undefined>()
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    props.run().then(
      (value) => {
        try {
          const rendered = props.view(value)
          props.onOutcome({ value })
          setView(rendered)
        } catch (error) {
          props.onOutcome({ error })
          setFailed(true)
        }
      },
      (error: unknown) => {
        props.onOutcome({ error })
        setFailed(true)
      }
    )
  }, [])
  useEffect(() => {
    // Exit after the final frame is committed, so the result (not the spinner) stays on screen.
    if (view || failed) exit()
  }, [view, failed])
  if (failed) return null
  if (!view) return <Spinner label={props.label} />
  // Static: written once above the live area, so a result taller than the terminal is never redrawn.
  return <Static items={[view]}>{(items, index) => <RichBlocks key={index} view={items} />}</Static>
}

/** A spinner while `run` works, then the rich view of its result; rejects with `run`'s error. */
export const runRichTask = async <T,>(label: string, run: () => Promise<T>, view: (result: T) => RichView): Promise<T> => {
  let outcome: Outcome<T> | undefined
  const instance = render(<RichTask label={label} run={run} view={view} onOutcome={(value) => (outcome = value)} />, { patchConsole: false })
  await instance.waitUntilExit()
  if (outcome && "value" in outcome) return outcome.value
  throw outcome?.error ?? new Error("interrupted")
}

interface FileRow {
  readonly file: string
  readonly phase: "queued" | "uploading" | "processing" | "done"
  readonly sent: number
  readonly total: number | undefined
}

type Finished = { readonly kind: "file"; readonly line: RichBlock } | { readonly kind: "summary"; readonly view: RichView }

const percent = (row: FileRow) => (row.total ? Math.min(100, Math.round((row.sent / row.total) * 100)) : 0)

const LiveRow = ({ row, nameWidth }: { readonly row: FileRow; readonly nameWidth: number }) => {
  const name = row.file.length > nameWidth ? `…${row.file.slice(-(nameWidth - 1))}` : row.file
  if (row.phase === "processing") return <Spinner label={`${name.padEnd(nameWidth)}  processing`} />
  return (
    <Box>
      <Box width={nameWidth + 2} flexShrink={0}>
        <Text>{name}</Text>
      </Box>
      <Box width={30} flexShrink={0}>
        <ProgressBar value={percent(row)} />
      </Box>
      <Text dimColor>
        {" "}
        {String(percent(row)).padStart(3)}% {row.total !== undefined ? `of ${formatBytes(row.total)}` : ""}
      </Text>
    </Box>
  )
}

function UploadBoard<T>(props: {
  readonly files: ReadonlyArray<string>
  readonly work: (events: AddEvents, signal: AbortSignal) => Promise<T>
  readonly signal: AbortSignal
  readonly line: (result: AddResult) => RichBlock
  readonly summary: (result: T) => RichView
  readonly onOutcome: (outcome: Outcome<T>) => void
}) {
  const { exit } = useApp()
  const [rows, setRows] = useState<ReadonlyArray<FileRow>>(() => props.files.map((file) => ({ file, phase: "queued", sent: 0, total: undefined })))
  const [finished, setFinished] = useState<ReadonlyArray<Finished>>([])
  const [over, setOver] = useState(false)
  useEffect(() => {
    const update = (index: number, change: Partial<FileRow>) =>
      setRows((current) => current.map((row, at) => (at === index ? { ...row, ...change } : row)))
    const events: AddEvents = {
      onStart: (index) => update(index, { phase: "uploading" }),
      onProgress: (index, sent, total) => update(index, { sent, total }),
      onUploaded: (index) => update(index, { phase: "processing" }),
      onDone: (index, result) => {
        update(index, { phase: "done" })
        setFinished((current) => [...current, { kind: "file", line: props.line(result) }])
      }
    }
    props.work(events, props.signal).then(
      (value) => {
        props.onOutcome({ value })
        setFinished((current) => [...current, { kind: "summary", view: props.summary(value) }])
        setOver(true)
      },
      (error: unknown) => {
        props.onOutcome({ error })
        setOver(true)
      }
    )
  }, [])
  useEffect(() => {
    if (over) exit()
  }, [over])
  const nameWidth = Math.min(40, Math.max(8, ...props.files.map((file) => file.length)))
  const live = rows.filter((row) => row.phase === "uploading" || row.phase === "processing")
  const doneCount = rows.filter((row) => row.phase === "done").length
  return (
    <>
      {/* Finished files are written once above the live rows, so a long batch never redraws them. */}
      <Static items={[...finished]}>
        {(item, index) => (item.kind === "file" ? <RichBlockView key={index} block={item.line} /> : <RichBlocks key={index} view={item.view} />)}
      </Static>
      {!over && (
        <Box flexDirection="column">
          {live.map((row) => (
            <LiveRow key={row.file} row={row} nameWidth={nameWidth} />
          ))}
          <Text dimColor>
            {doneCount} of {rows.length} file{rows.length === 1 ? "" : "s"} done
          </Text>
        </Box>
      )}
    </>
  )
}

/**
 * Runs a batch of uploads with a progress bar per file while its bytes are sent, then a spinner until
 * ingestion settles, and a line per finished file; resolves with `work`'s result.
 */
export const runUploadBoard = async <T,>(
  files: ReadonlyArray<string>,
  work: (events: AddEvents, signal: AbortSignal) => Promise<T>,
  line: (result: AddResult) => RichBlock,
  summary: (result: T) => RichView
): Promise<T> => {
  let outcome: Outcome<T> | undefined
  const controller = new AbortController()
  const instance = render(
    <UploadBoard files={files} work={work} signal={controller.signal} line={line} summary={summary} onOutcome={(value) => (outcome = value)} />,
    { patchConsole: false }
  )
  await instance.waitUntilExit()
  // Ctrl+C ends the board before the work: abort the uploads and waits, or they would keep the process alive.
  if (!outcome) controller.abort(new Error("interrupted"))
  if (outcome && "value" in outcome) return outcome.value
  throw outcome?.error ?? new Error("interrupted")
}

const Confirm = (props: { readonly question: string }) => {
  const { exit } = useApp()
  return (
    <Box>
      <Text bold>{props.question} </Text>
      <ConfirmInput defaultChoice="cancel" onConfirm={() => exit({ confirmed: true })} onCancel={() => exit({ confirmed: false })} />
    </Box>
  )
}

/** A yes/no question on stderr (stdout stays clean for --json); no by default and on Ctrl+C. */
export const confirm = async (question: string): Promise<boolean> => {
  const instance = render(<Confirm question={question} />, { stdout: process.stderr, patchConsole: false, exitOnCtrlC: true })
  const result = (await instance.waitUntilExit()) as { confirmed: boolean } | undefined
  return result?.confirmed ?? false
}
