import { ConfirmInput, PasswordInput, ProgressBar, Spinner, TextInput } from "@inkjs/ui"
import { Box, render, Static, Text, useApp } from "ink"
import { type ReactNode, useEffect, useState } from "react"
import type { UploadEvents } from "../uploads"
import type { Progress, ProgressReporter } from "./progress"
import { COLUMN_GAP, layoutTable, truncate } from "./table"
import { type Block, type Cell, formatBytes, plural, type Segment, type Span, type Tone, type View } from "./view"

// Loaded only when stdout (or, for progress, stderr) is a terminal (present.ts), so pipes and --json never
// load React.

const toneColor: Record<Tone, string> = { success: "green", warning: "yellow", error: "red", muted: "gray", accent: "cyan" }
const toneMark: Partial<Record<Tone, string>> = { success: "✓ ", warning: "! ", error: "✗ " }

/** The terminal's width, for fitting tables; 80 when the stream does not say. */
const terminalWidth = (stream: NodeJS.WriteStream = process.stdout) => (stream.columns && stream.columns > 0 ? stream.columns : 80)

const SpanText = ({ span }: { readonly span: Span }) => (
  <Text bold={span.bold ?? false} {...(span.tone === "muted" ? { dimColor: true } : span.tone ? { color: toneColor[span.tone] } : {})}>
    {span.text}
  </Text>
)

const CellText = ({ cell }: { readonly cell: Cell }) => <SpanText span={typeof cell === "string" ? { text: cell } : cell} />

const SegmentText = ({ segment }: { readonly segment: Segment }) =>
  segment.emphasis === "term" ? (
    <Text bold color="yellow">
      {segment.text}
    </Text>
  ) : segment.emphasis === "cited" ? (
    <Text bold color="cyan" underline>
      {segment.text}
    </Text>
  ) : (
    <Text>{segment.text}</Text>
  )

const Table = ({ block }: { readonly block: Extract<Block, { kind: "table" }> }) => {
  if (block.rows.length === 0) return <Text dimColor>{block.empty}</Text>
  const table = layoutTable(block.columns, block.rows, terminalWidth())
  const line = (cells: ReadonlyArray<ReactNode>, key: number | string) => (
    // A table that cannot fit with its fixed columns whole wraps rather than cut an id.
    <Text key={key}>
      {cells.map((cell, index) => (
        <Text key={index}>
          {index > 0 ? COLUMN_GAP : ""}
          {cell}
        </Text>
      ))}
    </Text>
  )
  return (
    <Box flexDirection="column">
      {line(
        table.header.map((header) => <Text bold>{header}</Text>),
        "header"
      )}
      {table.rows.map((row, rowIndex) => line(row.map((cell) => <SpanText span={cell} />), rowIndex))}
      {table.omitted.length > 0 && <Text dimColor>Hidden at this width: {table.omitted.join(", ")} (widen the terminal, or pipe the output)</Text>}
    </Box>
  )
}

const BlockView = ({ block, first }: { readonly block: Block; readonly first: boolean }) => {
  switch (block.kind) {
    case "heading":
      return (
        <Box marginTop={first ? 0 : 1}>
          <Text bold>{block.text}</Text>
        </Box>
      )
    case "message":
      return (
        <Text {...(block.tone ? { color: toneColor[block.tone] } : {})}>
          {(block.tone && toneMark[block.tone]) ?? ""}
          {block.text}
        </Text>
      )
    case "fields": {
      const width = Math.max(0, ...block.fields.map(([label]) => label.length)) + 2
      return (
        <Box flexDirection="column">
          {block.fields.map(([label, value]) => (
            <Box key={label}>
              <Box width={width} flexShrink={0}>
                <Text dimColor>{label}</Text>
              </Box>
              <CellText cell={value} />
            </Box>
          ))}
        </Box>
      )
    }
    case "table":
      return <Table block={block} />
    case "secret":
      // No border: a wrapped token inside a box would be copied with the box's characters.
      return (
        <Box flexDirection="column">
          <Text color="yellow">{block.label}</Text>
          <Text bold>{block.value}</Text>
          <Text dimColor>{block.note}</Text>
        </Box>
      )
    case "line":
      return (
        <Text>
          {block.spans.map((span, index) => (
            <SpanText key={index} span={span} />
          ))}
        </Text>
      )
    case "passage":
      return (
        <Box paddingLeft={block.indent ?? 0}>
          <Text>
            {block.segments.map((segment, index) => (
              <SegmentText key={index} segment={segment} />
            ))}
          </Text>
        </Box>
      )
    case "blank":
      return <Text> </Text>
    case "hint":
      return <Text dimColor>{block.text}</Text>
  }
}

export const ViewBlocks = ({ view }: { readonly view: View }) => (
  <Box flexDirection="column">
    {view.map((block, index) => (
      <BlockView key={index} block={block} first={index === 0} />
    ))}
  </Box>
)

type Outcome<T> = { readonly value: T } | { readonly error: unknown }

/** Renders `element` until it exits, then returns what it reported, or rejects with its error. */
const untilOutcome = async <T,>(element: (report: (outcome: Outcome<T>) => void) => ReactNode, stream: NodeJS.WriteStream = process.stdout): Promise<T> => {
  let outcome: Outcome<T> | undefined
  const instance = render(<>{element((reported) => (outcome = reported))}</>, { stdout: stream, patchConsole: false })
  await instance.waitUntilExit()
  if (outcome && "value" in outcome) return outcome.value
  throw outcome?.error ?? new Error("interrupted")
}

function Task<T>(props: {
  readonly label: string
  readonly run: (progress: ProgressReporter) => Promise<T>
  readonly view: (result: T) => View
  readonly report: (outcome: Outcome<T>) => void
}) {
  const { exit } = useApp()
  const [view, setView] = useState<View | undefined>()
  const [failed, setFailed] = useState(false)
  const [progress, setProgress] = useState<Progress | undefined>()
  useEffect(() => {
    props.run(setProgress).then(
      (value) => {
        try {
          const rendered = props.view(value)
          props.report({ value })
          setView(rendered)
        } catch (error) {
          props.report({ error })
          setFailed(true)
        }
      },
      (error: unknown) => {
        props.report({ error })
        setFailed(true)
      }
    )
  }, [])
  useEffect(() => {
    // Exit after the final frame is committed, so the result (not the spinner) stays on screen.
    if (view || failed) exit()
  }, [view, failed])
  if (failed) return null
  if (!view) return progress ? <ProgressLine label={props.label} progress={progress} /> : <Spinner label={props.label} />
  // Static output is written once, above the live area: a result taller than the terminal is then never
  // redrawn (Ink clears the whole screen, scrollback included, to redraw a frame that tall).
  return <Static items={[view]}>{(items, index) => <ViewBlocks key={index} view={items} />}</Static>
}

/** A bar when the total is known, else a spinner with the count so far. */
export const ProgressLine = ({ label, progress }: { readonly label: string; readonly progress: Progress }) => {
  if (progress.total === null || progress.total <= 0) return <Spinner label={`${label}: ${plural(progress.done, progress.unit)}`} />
  const value = Math.min(100, Math.round((progress.done / progress.total) * 100))
  return (
    <Box>
      <Text>{label} </Text>
      <Box width={30} flexShrink={0}>
        <ProgressBar value={value} />
      </Box>
      <Text dimColor>
        {" "}
        {progress.done} of {plural(progress.total, progress.unit)}
      </Text>
    </Box>
  )
}

/** Shows a spinner (or a progress bar once `run` reports progress) while `run` works, then the view of its result. */
export const runTask = <T,>(label: string, run: (progress: ProgressReporter) => Promise<T>, view: (result: T) => View): Promise<T> =>
  untilOutcome<T>((report) => <Task label={label} run={run} view={view} report={report} />)

// ---- uploads ----------------------------------------------------------------------------------------

interface FileRow {
  readonly file: string
  /** uploading: bytes on the way; sent: all bytes sent, the server is storing them; ingesting: the server parses and indexes. */
  readonly phase: "queued" | "uploading" | "sent" | "ingesting" | "done"
  readonly sent: number
  readonly total: number | undefined
  /** The source's status while ingesting (PROCESSING, ...). */
  readonly state?: string
  readonly since: number
}

const percent = (row: FileRow) => (row.total ? Math.min(100, Math.round((row.sent / row.total) * 100)) : 0)

const LiveRow = ({ row, nameWidth }: { readonly row: FileRow; readonly nameWidth: number }) => {
  const name = truncate(row.file, nameWidth).padEnd(nameWidth)
  if (row.phase === "sent" || row.phase === "ingesting") {
    const seconds = Math.floor((Date.now() - row.since) / 1000)
    const what = row.phase === "sent" ? "uploaded, the server is storing it" : `ingesting: ${row.state ?? "PROCESSING"}`
    return <Spinner label={`${name}  ${what}${seconds > 0 ? ` (${seconds} s)` : ""}`} />
  }
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

function UploadBoard<T, R>(props: {
  readonly files: ReadonlyArray<string>
  readonly work: (events: UploadEvents<{ readonly status: string }, R>) => Promise<T>
  readonly lines: (result: R) => View
  readonly summary: (result: T) => View
  readonly report: (outcome: Outcome<T>) => void
}) {
  const { exit } = useApp()
  const [rows, setRows] = useState<ReadonlyArray<FileRow>>(() => props.files.map((file) => ({ file, phase: "queued", sent: 0, total: undefined, since: Date.now() })))
  const [finished, setFinished] = useState<ReadonlyArray<View>>([])
  const [over, setOver] = useState(false)
  const [, tick] = useState(0)
  useEffect(() => {
    const update = (index: number, change: (row: FileRow) => Partial<FileRow>) =>
      setRows((current) => current.map((row, at) => (at === index ? { ...row, ...change(row) } : row)))
    const events: UploadEvents<{ readonly status: string }, R> = {
      onStart: (index) => update(index, () => ({ phase: "uploading", since: Date.now() })),
      // Once every byte is sent the bar has nothing more to say: a spinner shows the server is at work.
      onProgress: (index, sent, total) =>
        update(index, (row) => ({ sent, total, ...(total !== undefined && sent >= total && row.phase === "uploading" ? { phase: "sent" as const, since: Date.now() } : {}) })),
      onUploaded: (index, source) => update(index, () => ({ phase: "ingesting", state: source.status, since: Date.now() })),
      onStatus: (index, source) => update(index, () => ({ state: source.status })),
      onDone: (index, result) => {
        update(index, () => ({ phase: "done" }))
        setFinished((current) => [...current, props.lines(result)])
      }
    }
    // The elapsed seconds of the spinners move even when no event arrives.
    const clock = setInterval(() => tick((n) => n + 1), 1000)
    props.work(events).then(
      (value) => {
        clearInterval(clock)
        props.report({ value })
        setFinished((current) => [...current, props.summary(value)])
        setOver(true)
      },
      (error: unknown) => {
        clearInterval(clock)
        props.report({ error })
        setOver(true)
      }
    )
    return () => clearInterval(clock)
  }, [])
  useEffect(() => {
    if (over) exit()
  }, [over])
  const nameWidth = Math.min(40, Math.max(8, ...props.files.map((file) => file.length)))
  const live = rows.filter((row) => row.phase !== "queued" && row.phase !== "done")
  const doneCount = rows.filter((row) => row.phase === "done").length
  return (
    <>
      {/* Finished files are written once above the live rows, so a long batch never redraws them. */}
      <Static items={[...finished]}>{(view, index) => <ViewBlocks key={index} view={view} />}</Static>
      {!over && (
        <Box flexDirection="column">
          {live.map((row) => (
            <LiveRow key={row.file} row={row} nameWidth={nameWidth} />
          ))}
          <Text dimColor>
            {doneCount} of {plural(rows.length, "file")} done
          </Text>
        </Box>
      )}
    </>
  )
}

/**
 * Runs a batch of uploads with a progress bar per file while its bytes are sent, then a spinner with the
 * ingestion state until it settles, and the lines of each finished file; resolves with `work`'s result. Drawn on
 * `stream`: stdout, or stderr when stdout carries --json.
 */
export const runUploadBoard = async <T, R>(
  files: ReadonlyArray<string>,
  work: (events: UploadEvents<{ readonly status: string }, R>, signal: AbortSignal) => Promise<T>,
  lines: (result: R) => View,
  summary: (result: T) => View,
  stream: NodeJS.WriteStream = process.stdout
): Promise<T> => {
  const controller = new AbortController()
  try {
    return await untilOutcome<T>(
      (report) => <UploadBoard files={files} work={(events) => work(events, controller.signal)} lines={lines} summary={summary} report={report} />,
      stream
    )
  } catch (error) {
    // Ctrl+C ends the board before the work: abort the uploads and waits, or they would keep the process alive.
    controller.abort(error)
    throw error
  }
}

// ---- questions --------------------------------------------------------------------------------------

const Prompt = (props: { readonly label: string; readonly secret: boolean; readonly defaultValue?: string }) => {
  const { exit } = useApp()
  const submit = (value: string) => exit({ value })
  return (
    <Box>
      <Text bold>{props.label} </Text>
      {props.secret ? (
        <PasswordInput onSubmit={submit} />
      ) : (
        <TextInput {...(props.defaultValue ? { defaultValue: props.defaultValue } : {})} onSubmit={submit} />
      )}
    </Box>
  )
}

/** Asks one question on stderr (stdout stays clean for --json); undefined when the user pressed Ctrl+C. */
export const ask = async (label: string, secret: boolean, defaultValue?: string): Promise<string | undefined> => {
  const instance = render(<Prompt label={label} secret={secret} {...(defaultValue ? { defaultValue } : {})} />, {
    stdout: process.stderr,
    patchConsole: false,
    exitOnCtrlC: true
  })
  const result = (await instance.waitUntilExit()) as { value: string } | undefined
  return result?.value
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
