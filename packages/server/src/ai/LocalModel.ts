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

/** A crude suffix stem: -ing, -ed, -es or -s off (the longest that ends the word). */
const stem = (word: string) =>
  word.endsWith("ing") ? word.slice(0, -3)
    : word.endsWith("ed") || word.endsWith("es") ? word.slice(0, -2)
    : word.endsWith("s") ? word.slice(0, -1)
    : word

/** The question's salient terms: lower-cased words, stop words dropped, each once, in order of appearance. */
export const salientTerms = (question: string): ReadonlyArray<string> => {
  const seen = new Set<string>()
  for (const word of words(question)) {
    if (word.length < 2 || STOPWORDS.has(word) || seen.has(word)) continue
    seen.add(word)
  }
  return [...seen]
}

/**
 * The sentences of a passage that hold any of `terms` in their lower-case text (split after ".", "!" or "?" and
 * whitespace, whitespace runs made one space), with their position among all its sentences. The text is
 * lower-cased and searched once, and only the sentences found are cut out: a passage has ~15 sentences and the
 * question's terms are in one or two.
 */
const sentencesHolding = (text: string, terms: ReadonlyArray<string>) => {
  const lowerText = text.toLowerCase()
  // A case mapping that changes the length (rare) would shift the offsets: such a text's every sentence is looked at.
  const sliceable = lowerText.length === text.length
  const starts: Array<number> = [0]
  const ends: Array<number> = []
  for (const boundary of text.matchAll(/[.!?]\s+/g)) {
    ends.push(boundary.index + 1)
    starts.push(boundary.index + boundary[0].length)
  }
  ends.push(text.length)
  const holding = new Set<number>()
  if (sliceable) {
    for (const term of terms) {
      // Occurrences come in order, so the sentence holding each is found from the previous one's.
      let sentence = 0
      for (let at = lowerText.indexOf(term); at !== -1; at = lowerText.indexOf(term, at + 1)) {
        while (ends[sentence]! < at + term.length) sentence++
        holding.add(sentence)
      }
    }
  } else {
    for (let sentence = 0; sentence < ends.length; sentence++) holding.add(sentence)
  }
  return [...holding].sort((x, y) => x - y).map((position) => {
    const sentence = text.slice(starts[position], ends[position]).replace(/\s+/g, " ").trim()
    return { position, sentence, lower: sentence.toLowerCase() }
  }).filter((found) => found.sentence.length > 0)
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
  const wanted = new Set(terms)
  // A sentence's score (given its lower-case text): how many of the question's (stemmed) terms it holds.
  const score = (lower: string) => {
    // A word whose stem is a term begins with it: a sentence without any term in its text holds none (most do not).
    if (!terms.some((term) => lower.includes(term))) return 0
    const held = new Set<string>()
    for (const word of lower.match(WORD) ?? []) {
      const stemmed = stem(word)
      if (wanted.has(stemmed)) held.add(stemmed)
    }
    return terms.filter((term) => held.has(term)).length
  }
  const ranked = passages.flatMap((passage, index) =>
    sentencesHolding(passage.text, terms).map(({ sentence, lower, position }) => ({ passage: index, position, sentence, lower, score: score(lower) })))
    .filter((candidate) => candidate.score > 0)
    .sort((a, b) => b.score - a.score || a.passage - b.passage || a.position - b.position)
  const quoted = new Set<string>()
  const scored = ranked.filter((candidate) => {
    if (quoted.has(candidate.lower)) return false
    quoted.add(candidate.lower)
    return true
  }).slice(0, limit)
  if (scored.length === 0) return { text: NOTHING_RELEVANT, citations: [] as ReadonlyArray<{ readonly index: number; readonly passageId: string; readonly title: string }> }
  const cited = [...new Set(scored.map((candidate) => candidate.passage))].sort((a, b) => a - b)
  const quotes = scored.map((candidate) => `> "${candidate.sentence}" [${candidate.passage + 1}]`)
  return {
    text: `From the passages found:\n\n${quotes.join("\n")}`,
    citations: cited.map((index) => ({ index: index + 1, passageId: passages[index]!.id, title: passages[index]!.title }))
  }
}
