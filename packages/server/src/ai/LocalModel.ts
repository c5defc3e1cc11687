/** A retrieved passage an answer may quote. */
export interface Passage {
  readonly id: string
  readonly title: string
  readonly text: string
}

const STOPWORDS = new Set(
  ("a an and are as at be been but by can could did do does for from had has have how i if in into is it its me my " +
    "of on or our should so than that the their them then there these they this to was we were what when where which " +
    "who whom why will with would you your about any all also after before between both each few more most other " +
    "some such only own same too very just not no nor please tell explain describe give show find list").split(" ")
)

/** The words of a text, lower-cased, as salient terms and sentences are matched. */
const WORD = /[\p{L}\p{N}][\p{L}\p{N}_-]*/gu
const words = (text: string) => text.toLowerCase().match(WORD) ?? []

/**
 * A crude suffix stem: -ing, -ed, -es or -s off (the longest that ends the word), when two letters remain. A
 * shorter stem would match too much, and an empty one (of "ed", "es", "ing") is found at every offset of a text:
 * the searches below would never end.
 */
const stem = (word: string) => {
  const cut = word.endsWith("ing") ? 3 : word.endsWith("ed") || word.endsWith("es") ? 2 : word.endsWith("s") ? 1 : 0
  return word.length - cut >= 2 ? word.slice(0, word.length - cut) : word
}

/** The question's salient terms: lower-cased words, stop words dropped, each once, in order of appearance. */
export const salientTerms = (question: string): ReadonlyArray<string> => {
  const seen = new Set<string>()
  for (const word of words(question)) {
    if (word.length < 2 || STOPWORDS.has(word) || seen.has(word)) continue
    seen.add(word)
  }
  return [...seen]
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u
/** Whether the character at `at` is a letter or a digit (ASCII without a regular expression). */
const isLetterOrDigit = (text: string, at: number) => {
  const code = text.charCodeAt(at)
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90)
  return LETTER_OR_DIGIT.test(text[at]!)
}
/** Whether the character at `at` can be inside a word: a letter, a digit, `_` or `-` (see WORD). */
const isWordChar = (text: string, at: number) => {
  const code = text.charCodeAt(at)
  return code === 95 || code === 45 || isLetterOrDigit(text, at)
}

/**
 * Whether the word of `lower` that begins at `at` (where `term`, a stem, was found) stems to `term`: a word as WORD
 * cuts them (a run of letters, digits, `_` and `-`, from its first letter or digit), so `at` begins one when only
 * `_` and `-` come between it and the run's start.
 */
const stemAt = (lower: string, at: number, term: string) => {
  for (let before = at - 1; before >= 0 && isWordChar(lower, before); before--) {
    if (isLetterOrDigit(lower, before)) return false
  }
  let end = at + term.length
  while (end < lower.length && isWordChar(lower, end)) end++
  return stem(lower.slice(at, end)) === term
}

/** Whether a (lower-case) text holds a word whose stem is `term`: only where the term begins a word, not every word. */
const holdsStem = (lower: string, term: string) => {
  if (term.length === 0) return false
  for (let at = lower.indexOf(term); at !== -1; at = lower.indexOf(term, at + 1)) {
    if (stemAt(lower, at, term)) return true
  }
  return false
}

/**
 * The sentences of a passage that hold any of `terms` as a word's stem (split after ".", "!" or "?" and whitespace,
 * whitespace runs made one space), with their position among all its sentences and their score: how many of the
 * terms they hold (a term given twice counts twice), and a way to cut one out. The text is lower-cased and searched
 * once, each term where it begins a word; sentences are cut out only when quoted (a common term is in most of them,
 * and three are quoted).
 */
const scoredSentences = (text: string, terms: ReadonlyArray<string>) => {
  const lowerText = text.toLowerCase()
  const starts: Array<number> = [0]
  const ends: Array<number> = []
  for (const boundary of text.matchAll(/[.!?]\s+/g)) {
    ends.push(boundary.index + 1)
    starts.push(boundary.index + boundary[0].length)
  }
  ends.push(text.length)
  const cut = (position: number) => {
    const sentence = text.slice(starts[position], ends[position]).replace(/\s+/g, " ").trim()
    return { position, sentence, lower: sentence.toLowerCase() }
  }
  // A case mapping that changes the length (rare) would shift the offsets: such a text's sentences are each searched.
  if (lowerText.length !== text.length) {
    const scored = ends.map((_, position) => {
      const { lower } = cut(position)
      return { position, score: terms.filter((term) => holdsStem(lower, term)).length }
    })
    return { scored: scored.filter((found) => found.score > 0), cut }
  }
  /** The terms (by their index) each sentence holds. */
  const held = new Map<number, Set<number>>()
  terms.forEach((term, index) => {
    if (term.length === 0) return
    // Occurrences come in order, so the sentence holding each is found from the previous one's.
    let sentence = 0
    for (let at = lowerText.indexOf(term); at !== -1; at = lowerText.indexOf(term, at + 1)) {
      // Inside a word (after a letter or digit) the term begins no word: most of a common term's occurrences.
      if ((at > 0 && isLetterOrDigit(lowerText, at - 1)) || !stemAt(lowerText, at, term)) continue
      while (ends[sentence]! < at + term.length) sentence++
      const terms = held.get(sentence)
      if (terms) terms.add(index)
      else held.set(sentence, new Set([index]))
    }
  })
  return { scored: [...held].map(([position, terms]) => ({ position, score: terms.size })), cut }
}

export const NOTHING_RELEVANT = "I found nothing relevant to this question in the passages available to you."

/**
 * LOCAL's answer: the sentences of the passages that share the most salient terms with the question, each
 * quoted once (a sentence several passages hold, as overlapping chunks do, is cited by the first of them) and
 * cited by passage number ([1] is the first passage given); says so plainly when no passage shares any term.
 * The sources are not listed in the text: they travel as the answer's citations, which every client shows.
 */
export const extractiveAnswer = (question: string, passages: ReadonlyArray<Passage>, limit = 3) => {
  const terms = salientTerms(question).map(stem)
  const ranked = passages.flatMap((passage, index) => {
    const { scored, cut } = scoredSentences(passage.text, terms)
    return scored.map(({ position, score }) => ({ passage: index, position, score, cut }))
  }).sort((a, b) => b.score - a.score || a.passage - b.passage || a.position - b.position)
  const quoted = new Set<string>()
  const scored: Array<{ readonly passage: number; readonly sentence: string }> = []
  for (const candidate of ranked) {
    if (scored.length === limit) break
    const { sentence, lower } = candidate.cut(candidate.position)
    if (quoted.has(lower)) continue
    quoted.add(lower)
    scored.push({ passage: candidate.passage, sentence })
  }
  if (scored.length === 0) return { text: NOTHING_RELEVANT, citations: [] as ReadonlyArray<{ readonly index: number; readonly passageId: string; readonly title: string }> }
  const cited = [...new Set(scored.map((candidate) => candidate.passage))].sort((a, b) => a - b)
  const quotes = scored.map((candidate) => `> "${candidate.sentence}" [${candidate.passage + 1}]`)
  return {
    text: `From the passages found:\n\n${quotes.join("\n")}`,
    citations: cited.map((index) => ({ index: index + 1, passageId: passages[index]!.id, title: passages[index]!.title }))
  }
}
