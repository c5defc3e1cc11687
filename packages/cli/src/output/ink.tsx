import { PasswordInput, Spinner, TextInput } from "@inkjs/ui"
import { Box, render, Static, Text, useApp } from "ink"
import { useEffect, useState } from "react"
import { type Block, type Cell, cellText, type Tone, type View } from "./view"

// Loaded only when stdout is a terminal (see render.ts), so pipes and --json never pay for React.

const toneColor: Record<Tone, string> = { success: "green", warning: "yellow", error: "red", muted: "gray", accent: "cyan" }
const toneMark: Partial<Record<Tone, string>> = { success: "✓ ", warning: "! ", error: "✗ " }

const CellText = ({ cell }: { readonly cell: Cell }) =>
  typeof cell === "string" || !cell.tone ? (
    <Text>{cellText(cell)}</Text>
  ) : (
    <Text color={toneColor[cell.tone]}>{cell.text}</Text>
  )

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
    case "table": {
      if (block.rows.length === 0) return <Text dimColor>{block.empty}</Text>
      const widths = block.columns.map(
        (column, index) => Math.max(column.header.length, ...block.rows.map((row) => cellText(row[index] ?? "").length)) + 2
      )
      return (
        <Box flexDirection="column">
          <Box>
            {block.columns.map((column, index) => (
              <Box key={column.header} width={widths[index]} flexShrink={0} justifyContent={column.align === "right" ? "flex-end" : "flex-start"}>
                <Text bold>{column.header.toUpperCase()}</Text>
              </Box>
            ))}
          </Box>
          {block.rows.map((row, rowIndex) => (
            <Box key={rowIndex}>
              {row.map((cell, index) => (
                <Box key={index} width={widths[index]} flexShrink={0}>
                  <CellText cell={cell} />
                </Box>
              ))}
            </Box>
          ))}
        </Box>
      )
    }
    case "secret":
      // No border: a wrapped token inside a box would be copied with the box's characters.
      return (
        <Box flexDirection="column">
          <Text color="yellow">{block.label}</Text>
          <Text bold>{block.value}</Text>
          <Text dimColor>{block.note}</Text>
        </Box>
      )
  }
}

export const ViewBlocks = ({ view }: { readonly view: View }) => (
  <Box flexDirection="column">
    {view.map((block, index) => (
      <BlockView key={index} block={block} first={index === 0} />
    ))}
  </Box>
)

type TaskState = { readonly phase: "running" } | { readonly phase: "done"; readonly view: View } | { readonly phase: "failed"; readonly error: unknown }

function Task<T>(props: { readonly label: string; readonly run: () => Promise<T>; readonly view: (result: T) => View; readonly onResult: (result: T) => void }) {
  const { exit } = useApp()
  const [state, setState] = useState<TaskState>({ phase: "running" })
  useEffect(() => {
    props
      .run()
      .then((result) => {
        const view = props.view(result)
        props.onResult(result)
        return view
      })
      .then(
        (view) => setState({ phase: "done", view }),
        (error: unknown) => setState({ phase: "failed", error })
      )
  }, [])
  useEffect(() => {
    // Exit after the final frame is committed, so the result (not the spinner) stays on screen.
    if (state.phase === "done") exit()
    if (state.phase === "failed") exit(state.error instanceof Error ? state.error : new Error(String(state.error)))
  }, [state])
  if (state.phase === "running") return <Spinner label={props.label} />
  // Static output is written once, above the live area: a result taller than the terminal is then
  // never redrawn (Ink clears the whole screen, scrollback included, to redraw a frame that tall).
  if (state.phase === "done") return <Static items={[state.view]}>{(view, index) => <ViewBlocks key={index} view={view} />}</Static>
  return null
}

/** Shows a spinner while `run` works, then the view of its result; rejects with `run`'s error. */
export const runTask = async <T,>(label: string, run: () => Promise<T>, view: (result: T) => View): Promise<T> => {
  let outcome: { value: T } | undefined
  let failure: unknown
  const instance = render(<Task label={label} run={run} view={view} onResult={(value) => (outcome = { value })} />, {
    patchConsole: false
  })
  try {
    await instance.waitUntilExit()
  } catch (error) {
    failure = error
  }
  if (outcome) return outcome.value
  throw failure ?? new Error("interrupted")
}

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
