import { type Classification, type Clearance, classificationValues, clearanceValues } from "@lore/sdk"
import type { Block } from "../output/view"

/**
 * A user's clearance and a document's classification are two scales of the same four levels, named
 * differently at one rung: clearance STANDARD reads classification INTERNAL. Both value arrays are the
 * SDK's, generated from the server's enumerations in rank order (PUBLIC < STANDARD/INTERNAL <
 * CONFIDENTIAL < RESTRICTED), so a clearance reads every classification up to its own rank. Wherever
 * the CLI shows either level it says what it means in the other scale.
 */

const rank = <T extends string>(values: ReadonlyArray<T>, value: T) => values.indexOf(value)

/** The classifications a clearance reads, lowest first: STANDARD reads PUBLIC and INTERNAL. */
export const readableClassifications = (clearance: Clearance): Array<Classification> =>
  classificationValues.filter((classification) => rank(classificationValues, classification) <= rank(clearanceValues, clearance))

/** The clearances that read a classification, lowest first: INTERNAL needs STANDARD, CONFIDENTIAL or RESTRICTED. */
export const clearancesReading = (classification: Classification): Array<Clearance> =>
  clearanceValues.filter((clearance) => readableClassifications(clearance).includes(classification))

const list = (values: ReadonlyArray<string>) =>
  values.length <= 1 ? values.join("") : `${values.slice(0, -1).join(", ")} and ${values[values.length - 1]}`

/** `STANDARD (reads PUBLIC and INTERNAL)`. */
export const clearanceText = (clearance: Clearance) => `${clearance} (reads ${list(readableClassifications(clearance))})`

/** `CONFIDENTIAL (needs clearance CONFIDENTIAL or RESTRICTED)`. */
export const classificationText = (classification: Classification) => {
  const clearances = clearancesReading(classification)
  const needs = clearances.length <= 1 ? clearances.join("") : `${clearances.slice(0, -1).join(", ")} or ${clearances[clearances.length - 1]}`
  return `${classification} (needs clearance ${needs})`
}

/** Under a table with a clearance column: what each clearance shown reads, one hint line. */
export const clearanceLegend = (clearances: ReadonlyArray<Clearance>): Array<Block> => {
  const shown = clearanceValues.filter((clearance) => clearances.includes(clearance))
  if (shown.length === 0) return []
  return [{ kind: "hint", text: `Clearance ${shown.map(clearanceText).join("; ")}.` }]
}
