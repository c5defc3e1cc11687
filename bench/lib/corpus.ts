/**
 * A synthetic, deterministic English-like corpus for bench/search.ts, and natural-language questions
 * about it. Word frequencies follow a Zipf law (s = 1.05) over about 3,500 word types: real function
 * words and common words at the head (so questions hit long posting lists, as real ones do), made-up
 * words in the tail, and 40 topics whose terms are concentrated in the documents about them (so BM25's
 * IDF has something to tell apart). Documents are plain text of several pages, pages ended by a form
 * feed, paragraphs separated by blank lines: what Lore's plain-text parser counts as pages.
 */

/** mulberry32: small, fast, seeded. */
export const random = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const FUNCTION_WORDS = (
  "the of and to a in is that for it as with was on be by this are or at from have an not which but they " +
  "their has were all can will more one would there been if its also other when we so into than these may " +
  "should about any each such only most must some over after who what how our between before under while"
).split(" ")

const COMMON_WORDS = (
  "time people work year way day team process new information need use part system company group " +
  "number problem service place case point report week change question level member program area " +
  "account policy manager customer support data request review plan project document business order " +
  "result approval access issue control form office rule month employee cost update access right " +
  "information support include provide make take give find follow check submit receive send keep " +
  "require allow create manage apply complete record share contact describe explain list note step " +
  "first last next current previous early late small large general specific standard local central " +
  "important available possible necessary common public private internal external annual monthly " +
  "daily regular final formal main key clear simple full open quality risk value price budget " +
  "payment contract product market sale client vendor partner supplier agreement meeting schedule " +
  "deadline task goal target measure metric performance training guide handbook manual procedure " +
  "template example section chapter page table figure summary overview detail note comment feedback " +
  "question answer decision responsibility owner role lead staff leader director department unit " +
  "region country city site building floor room desk equipment device computer laptop phone network " +
  "software application tool platform service server database file folder email message letter " +
  "notice request ticket incident problem error failure outage response recovery backup security " +
  "password identity permission license audit compliance regulation law standard requirement " +
  "evidence finding risk control test check review assessment evaluation analysis research study " +
  "model design architecture component interface integration deployment release version feature " +
  "customer user patient student visitor guest candidate applicant contractor consultant expert " +
  "health safety environment energy water waste travel transport vehicle parking food event " +
  "holiday leave absence benefit salary bonus pension insurance tax invoice expense receipt " +
  "purchase order delivery shipment stock inventory warehouse asset property facility maintenance " +
  "repair cleaning lighting heating storage capacity demand supply growth strategy vision mission " +
  "culture value communication language translation learning course certificate skill knowledge"
).split(" ")

/** Topics: a name (used in titles) and the terms that documents about it use far more than others. */
export const TOPICS: ReadonlyArray<{ readonly name: string; readonly terms: ReadonlyArray<string> }> = [
  { name: "Travel Expenses", terms: "travel reimbursement flight hotel receipt mileage itinerary airfare lodging allowance per diem taxi".split(" ") },
  { name: "Parental Leave", terms: "parental leave maternity paternity newborn adoption childcare caregiver weeks return entitlement".split(" ") },
  { name: "Onboarding", terms: "onboarding newcomer orientation buddy laptop badge induction checklist welcome firstday mentor".split(" ") },
  { name: "Incident Response", terms: "incident outage severity pager escalation postmortem oncall triage mitigation rollback alert".split(" ") },
  { name: "Data Retention", terms: "retention deletion archive records lifetime purge legal hold expiry storage backup".split(" ") },
  { name: "Procurement", terms: "procurement tender bid quotation supplier purchase requisition approval threshold vendor sourcing".split(" ") },
  { name: "Information Security", terms: "phishing malware encryption vulnerability patch firewall antivirus breach credential mfa".split(" ") },
  { name: "Remote Work", terms: "remote homeworking hybrid telework coworking stipend ergonomics broadband videoconference commute".split(" ") },
  { name: "Performance Reviews", terms: "appraisal calibration rating promotion objectives competencies midyear feedback goals evaluation".split(" ") },
  { name: "Code Review", terms: "pull merge reviewer approval branch linting commit diff testing repository".split(" ") },
  { name: "Kubernetes Operations", terms: "kubernetes cluster pod node container helm namespace ingress autoscaling deployment".split(" ") },
  { name: "Customer Refunds", terms: "refund chargeback cancellation credit dispute return warranty goodwill compensation complaint".split(" ") },
  { name: "Fire Safety", terms: "fire evacuation extinguisher alarm assembly warden drill exit sprinkler smoke".split(" ") },
  { name: "Expense Cards", terms: "card corporate statement reconciliation limit cardholder merchant transaction receipt petty".split(" ") },
  { name: "Recruiting", terms: "recruiting interview candidate hiring offer referral sourcing shortlist panel scorecard".split(" ") },
  { name: "Privacy", terms: "privacy personal consent gdpr subject erasure controller processor anonymization pseudonymization".split(" ") },
  { name: "Release Management", terms: "release freeze changelog rollout canary hotfix versioning tag milestone regression".split(" ") },
  { name: "Office Facilities", terms: "facilities desk booking meeting room cleaning heating lighting reception mailroom parking".split(" ") },
  { name: "Payroll", terms: "payroll payslip salary overtime deduction withholding bonus payday timesheet adjustment".split(" ") },
  { name: "Vendor Risk", terms: "vendor questionnaire assessment third party due diligence soc2 subprocessor contract risk".split(" ") },
  { name: "Sales Commission", terms: "commission quota accelerator territory pipeline booking clawback plan attainment payout".split(" ") },
  { name: "Laboratory Safety", terms: "laboratory chemical fume hood goggles spill hazardous glove disposal biosafety".split(" ") },
  { name: "Fleet Vehicles", terms: "fleet vehicle fuel mileage logbook maintenance accident insurance driver licence".split(" ") },
  { name: "Accessibility", terms: "accessibility screen reader contrast caption keyboard wcag disability accommodation alt".split(" ") },
  { name: "Budget Planning", terms: "budget forecast variance headcount capex opex quarter allocation reforecast spend".split(" ") },
  { name: "Customer Support", terms: "ticket queue escalation sla response resolution satisfaction macro handoff backlog".split(" ") },
  { name: "Software Licensing", terms: "license seat subscription renewal entitlement open source compliance audit activation".split(" ") },
  { name: "Whistleblowing", terms: "whistleblowing misconduct anonymous report retaliation ethics hotline investigation fraud integrity".split(" ") },
  { name: "Training Programs", terms: "training course curriculum certification workshop elearning trainer enrollment completion credits".split(" ") },
  { name: "Warehouse Operations", terms: "warehouse picking packing pallet forklift inventory shipment dock stocktake replenishment".split(" ") },
  { name: "Clinical Trials", terms: "clinical trial protocol participant placebo consent adverse endpoint randomization investigator".split(" ") },
  { name: "Energy Efficiency", terms: "energy efficiency consumption insulation solar thermostat emissions carbon meter renewable".split(" ") },
  { name: "Event Planning", terms: "event venue catering registration speaker agenda sponsorship attendee badge logistics".split(" ") },
  { name: "Mobile Devices", terms: "mobile smartphone tablet enrollment mdm wipe roaming sim charger lost".split(" ") },
  { name: "Database Administration", terms: "database index query replication failover vacuum schema migration postgres backup".split(" ") },
  { name: "Brand Guidelines", terms: "brand logo typography palette colour tone voice trademark imagery template".split(" ") },
  { name: "Legal Contracts", terms: "contract clause liability indemnity termination signature counterparty nda amendment jurisdiction".split(" ") },
  { name: "Wellbeing", terms: "wellbeing mental health counseling stress burnout gym mindfulness assistance sick".split(" ") },
  { name: "Access Requests", terms: "access request permission role approval revoke entitlement group privileged account".split(" ") },
  { name: "Sustainability Reporting", terms: "sustainability esg disclosure scope emissions target materiality supplier footprint reporting".split(" ") }
]

/** About fifty questions people would type, each about one or two topics, in their own words. */
export const QUESTIONS: ReadonlyArray<string> = [
  "How do I get reimbursed for a hotel and flight when I travel for a customer meeting?",
  "What is the daily per diem allowance for business travel abroad?",
  "How many weeks of parental leave do new fathers get after an adoption?",
  "Who is my onboarding buddy and when do I receive my laptop and badge?",
  "What should the on-call engineer do first when a severity one incident is paged?",
  "How long do we keep customer records before they are purged from the archive?",
  "What is the approval threshold for a purchase requisition without a tender?",
  "How do I report a phishing email I clicked by mistake?",
  "Can I work remotely from another country for a month, and is there a home office stipend?",
  "When are the midyear performance appraisals and how does calibration work?",
  "How many reviewers must approve a pull request before it can be merged?",
  "How do I scale a deployment on the Kubernetes cluster when pods run out of memory?",
  "What is the process for giving a customer a refund after a chargeback dispute?",
  "Where is the fire assembly point and who are the evacuation wardens on my floor?",
  "What do I do if I lose my corporate card or a receipt for a transaction?",
  "How do employee referrals work and is there a bonus when the candidate is hired?",
  "How do we handle a subject erasure request under GDPR?",
  "When is the code freeze before a major release and who approves a hotfix?",
  "How can I book a meeting room or a desk in the office?",
  "Why is my overtime missing from my payslip this month?",
  "Which vendors need a security questionnaire and a due diligence assessment?",
  "How is sales commission calculated when a deal is booked after the quarter ends?",
  "What protective equipment is required when handling hazardous chemicals in the laboratory?",
  "Who pays for fuel and maintenance of a fleet vehicle after an accident?",
  "How do I make our documents accessible to people who use a screen reader?",
  "How do I request additional headcount in next year's budget forecast?",
  "What is the response time target for a high priority support ticket?",
  "Can I install open source software, and how do we track license compliance?",
  "How can I report misconduct anonymously without fear of retaliation?",
  "Which training courses are mandatory and how many credits do I need for certification?",
  "What are the safety rules for driving a forklift in the warehouse?",
  "How do we obtain informed consent from participants in a clinical trial?",
  "What are we doing to reduce energy consumption and carbon emissions in our buildings?",
  "How do I organize catering and registration for an internal event?",
  "What happens to my phone if it is lost, can IT wipe it remotely?",
  "How do I request a database schema migration and who reviews the index changes?",
  "Where can I find the logo files and the brand colour palette?",
  "Who can sign a contract and what liability clauses need legal review?",
  "Is there counseling support for stress and burnout?",
  "How do I request access to a privileged account and who approves it?",
  "What do we disclose in the sustainability report about scope three emissions?",
  "What is the policy on expenses for taxi rides to the airport?",
  "How do I return equipment like my laptop and badge when I leave the company?",
  "What is the escalation path when a customer complaint is not resolved?",
  "How often are backups tested and how long does recovery take after an outage?",
  "Can my manager see my sick leave and my mental health information?",
  "How do I update my bank account for salary payments?",
  "What training should a new manager complete in the first month?",
  "How are suppliers evaluated for environmental and social risk?",
  "What is the deadline for submitting the annual budget plan to finance?"
]

const TITLE_WORDS = "Policy Handbook Guide Procedure Standard Manual Playbook Overview Guidelines Runbook FAQ Notes".split(" ")

/** Made-up words for the Zipf tail: pronounceable, lower case, mostly 5-11 letters. */
const madeUpWords = (count: number, next: () => number) => {
  const onsets = "b c d f g h j k l m n p r s t v w z br cr dr fl gr pl pr sl st tr ch sh th".split(" ")
  const vowels = "a e i o u ai ea ie oo ou".split(" ")
  const codas = ["", "", "n", "r", "l", "s", "t", "m", "nd", "st", "rk", "nt"]
  const words = new Set<string>()
  const pick = <A>(xs: ReadonlyArray<A>) => xs[Math.floor(next() * xs.length)]!
  while (words.size < count) {
    const syllables = 2 + Math.floor(next() * 3)
    let word = ""
    for (let i = 0; i < syllables; i++) word += pick(onsets) + pick(vowels) + (i === syllables - 1 ? pick(codas) : "")
    words.add(word)
  }
  return [...words]
}

/** Samples ranks 0..n-1 with P(r) proportional to 1/(r+1)^s, by binary search over the cumulative weights. */
const zipf = (n: number, s: number) => {
  const cumulative = new Float64Array(n)
  let total = 0
  for (let r = 0; r < n; r++) cumulative[r] = total += 1 / Math.pow(r + 1, s)
  return (u: number) => {
    const target = u * total
    let lo = 0
    let hi = n - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cumulative[mid]! < target) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}

export interface SyntheticDocument {
  readonly fileName: string
  readonly text: string
  readonly pages: number
}

export interface CorpusOptions {
  readonly seed: number
  /** Pages per document: uniform between these. */
  readonly minPages?: number
  readonly maxPages?: number
}

/** An endless, deterministic stream of documents (document i is the same for the same seed). */
export const documents = function* (options: CorpusOptions): Generator<SyntheticDocument> {
  const next = random(options.seed)
  const vocabulary = [...new Set([...FUNCTION_WORDS, ...COMMON_WORDS])].concat(madeUpWords(3000, next))
  const word = zipf(vocabulary.length, 1.05)
  const topicWord = zipf(12, 0.8)
  const minPages = options.minPages ?? 4
  const maxPages = options.maxPages ?? 24
  for (let n = 1; ; n++) {
    const primary = TOPICS[Math.floor(next() * TOPICS.length)]!
    const secondary = TOPICS[Math.floor(next() * TOPICS.length)]!
    const pick = () => {
      const u = next()
      // About 1 word in 10 is a term of the document's topics, the rest come from the general vocabulary.
      if (u < 0.07) return primary.terms[topicWord(next()) % primary.terms.length]!
      if (u < 0.1) return secondary.terms[topicWord(next()) % secondary.terms.length]!
      return vocabulary[word(next())]!
    }
    const sentence = () => {
      const length = 6 + Math.floor(next() * 17)
      const words: string[] = []
      for (let i = 0; i < length; i++) words.push(pick())
      const first = words[0]!
      words[0] = first[0]!.toUpperCase() + first.slice(1)
      return words.join(" ") + (next() < 0.08 ? "?" : ".")
    }
    const paragraph = () => {
      const sentences: string[] = []
      for (let i = 3 + Math.floor(next() * 4); i > 0; i--) sentences.push(sentence())
      return sentences.join(" ")
    }
    const pageCount = minPages + Math.floor(next() * (maxPages - minPages + 1))
    const pages: string[] = []
    for (let p = 0; p < pageCount; p++) {
      const paragraphs: string[] = []
      let words = 0
      const target = 300 + Math.floor(next() * 150)
      while (words < target) {
        const text = paragraph()
        words += text.split(" ").length
        paragraphs.push(text)
      }
      pages.push(paragraphs.join("\n\n"))
    }
    const title = `${primary.name} ${TITLE_WORDS[Math.floor(next() * TITLE_WORDS.length)]} ${n}`
    yield { fileName: `${title.replace(/ /g, "_")}.txt`, text: pages.join("\n\f") + "\n\f", pages: pageCount }
  }
}

const QUESTION_STOPWORDS = new Set("a an and are as at be by can do does for from get has have how i in is it my of on or our should the there to we what when where which who why will with".split(" "))

/**
 * The questions in three shapes: `natural` as written (10-17 words); `short`, the first three content words
 * of each (what people type into a search box); `long`, five consecutive questions run together (55-80
 * words: a pasted paragraph, or what an assistant sends).
 */
export const QUESTION_SETS = {
  natural: QUESTIONS,
  short: QUESTIONS.map((q) => (q.toLowerCase().match(/[a-z]+/g) ?? []).filter((w) => !QUESTION_STOPWORDS.has(w)).slice(0, 3).join(" ")),
  long: QUESTIONS.map((_, i) => Array.from({ length: 5 }, (_, k) => QUESTIONS[(i + k) % QUESTIONS.length]).join(" "))
} as const satisfies Record<string, ReadonlyArray<string>>

export type QuestionSet = keyof typeof QUESTION_SETS
