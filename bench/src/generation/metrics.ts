// How generated study material is scored against the labelled lectures of bench/generation/ (issue #18).
// Pure functions over plain data: the benchmark feeds them the generator's output, the unit test
// (services/study/test/unit/generation-metrics.test.ts) feeds them hand-made cards. Every rule is defined in the
// comment above it and in bench/generation/README.md.
import nlp from "compromise";

// ---------------------------------------------------------------------------------------------------------
// Text forms

export const normalizeWhitespace = (text: string) => text.normalize("NFC").replace(/\s+/g, " ").trim();

/** Case and whitespace aside: how excerpts are looked for in a typed note. */
export const lowerText = (text: string) => normalizeWhitespace(text).toLowerCase();

/**
 * A transcript's punctuation was put there by the recognition engine at pauses (a capital and a full stop
 * after every pause, in the media service's offline transcripts), so it is not text the speaker wrote: for
 * transcripts, comparisons also accept the text without `. , ! ? ; :` and without case.
 */
export const looseText = (text: string) => normalizeWhitespace(text.toLowerCase().replace(/[.,!?;:]+(?=\s|$)/g, " "));

/**
 * A term as compared with the labels: lower case, typographic apostrophes and dashes folded, a leading
 * article and a trailing possessive dropped, trailing punctuation and quotes dropped, and the last word
 * folded to a regular singular ("boundaries" → "boundary", "trenches" → "trench"; not "-ss", "-us", "-is",
 * "-ics"). Irregular forms ("stomata"/"stoma") are listed by the labels as other forms.
 */
export function normalizeTerm(term: string): string {
  const words = normalizeWhitespace(term)
    .toLowerCase()
    .replace(/\*\*/g, "")
    .replace(/[’‘]/g, "'")
    .replace(/[-‐‑–—]/g, " ")
    .replace(/^["'“”(]+|["'“”.,;:!?]+$/g, "")
    .replace(/^(?:the|a|an)\s+/, "")
    .replace(/'s$/, "")
    .replace(/s'$/, "s")
    .split(/\s+/)
    .filter(Boolean);
  if (!words.length) return "";
  words[words.length - 1] = singular(words[words.length - 1]);
  return words.join(" ");
}

function singular(word: string): string {
  if (word.length <= 3 || /(?:ss|us|is|ics)$/.test(word)) return word;
  if (/ies$/.test(word)) return word.replace(/ies$/, "y");
  if (/(?:ch|sh|x|z|ss|o)es$/.test(word)) return word.replace(/es$/, "");
  return word.replace(/s$/, "");
}

/**
 * The sentences of a text: cut after `.`, `!` or `?` (and a closing quote) followed by white space, and at
 * blank lines. None of the set's abbreviations ends in a full stop, so this is exact on the set.
 */
export function splitSentences(text: string): string[] {
  return text
    .split(/\n\s*\n|(?<=[.!?]["”’)]?)\s+/)
    .map(normalizeWhitespace)
    .filter(Boolean);
}

/** Lower-case words (letters, digits, inner apostrophes). */
export const wordsOf = (text: string): string[] =>
  Array.from(
    normalizeWhitespace(text)
      .toLowerCase()
      .matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu),
    (match) => match[0],
  );

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Where `phrase` occurs in `text` as whole words, case aside (character offsets into `text`). */
export function wholeWordMatches(text: string, phrase: string): { start: number; end: number }[] {
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(normalizeWhitespace(phrase))}(?![\\p{L}\\p{N}])`, "giu");
  return Array.from(text.matchAll(pattern), (match) => ({ start: match.index, end: match.index + match[0].length }));
}

// ---------------------------------------------------------------------------------------------------------
// The lecture as the metrics see it

/** What the metrics need of a labelled lecture (see eval-set.ts). */
export interface LabelledSource {
  text: string;
  kind: "typed" | "transcript";
  sentences: string[];
  keyTerms: { term: string; also: string[]; kind?: Kind }[];
  keyFacts: { id: string; excerpt: string; answers: string[] }[];
  garbledTexts: string[];
}

/** A lecture prepared once for scoring: normalised texts, the accepted forms, the garbled-only trigrams. */
export interface Reference {
  source: LabelledSource;
  normalized: string;
  loose: string;
  /** normalizeTerm of every form of every key term → the key term. */
  forms: Map<string, string>;
  /** normalizeTerm of every form of a key term labelled with a kind → that kind. */
  kinds: Map<string, Kind>;
  /** Per fact, the normalised forms of the key terms it accepts as answers. */
  factForms: Map<string, Set<string>>;
  /** Word trigrams of garbled segments that occur nowhere else in the text. */
  garbledTrigrams: Set<string>;
  /** Every word of the text, for telling glued words apart. */
  words: Set<string>;
}

const trigrams = (words: readonly string[]) => words.slice(2).map((_, index) => `${words[index]} ${words[index + 1]} ${words[index + 2]}`);

export function prepareReference(source: LabelledSource): Reference {
  const forms = new Map<string, string>();
  const kinds = new Map<string, Kind>();
  for (const term of source.keyTerms) {
    for (const form of [term.term, ...term.also]) {
      forms.set(normalizeTerm(form), term.term);
      if (term.kind) kinds.set(normalizeTerm(form), term.kind);
    }
  }
  const formsOfTerm = (name: string) => {
    const term = source.keyTerms.find((candidate) => [candidate.term, ...candidate.also].some((form) => normalizeTerm(form) === normalizeTerm(name)));
    return term ? [term.term, ...term.also].map(normalizeTerm) : [normalizeTerm(name)];
  };
  const factForms = new Map(source.keyFacts.map((fact) => [fact.id, new Set(fact.answers.flatMap(formsOfTerm))]));
  let goodText = source.text;
  for (const garbled of source.garbledTexts) goodText = goodText.replace(garbled, " ");
  const goodTrigrams = new Set(trigrams(wordsOf(goodText)));
  const garbledTrigrams = new Set(source.garbledTexts.flatMap((text) => trigrams(wordsOf(text))).filter((trigram) => !goodTrigrams.has(trigram)));
  return {
    source,
    normalized: normalizeWhitespace(source.text),
    loose: looseText(source.text),
    forms,
    kinds,
    factForms,
    garbledTrigrams,
    words: new Set(wordsOf(source.text)),
  };
}

/** Whether `phrase` occurs in the source as whole words, case aside (transcripts: punctuation aside too). */
export function inSource(reference: Reference, phrase: string): boolean {
  if (wholeWordMatches(reference.normalized, phrase).length) return true;
  return reference.source.kind === "transcript" && wholeWordMatches(reference.loose, looseText(phrase)).length > 0;
}

/** Whether `statement` (an item's source statement) contains `excerpt`, as inSource compares. */
function containsExcerpt(reference: Reference, statement: string, excerpt: string): boolean {
  if (lowerText(statement).includes(lowerText(excerpt))) return true;
  return reference.source.kind === "transcript" && looseText(statement).includes(looseText(excerpt));
}

/** The key term an answer names (any listed form, see normalizeTerm), or null. */
export function keyTermOf(reference: Reference, answer: string): string | null {
  return reference.forms.get(normalizeTerm(stripAlias(answer))) ?? reference.forms.get(normalizeTerm(answer)) ?? null;
}

/** "ATP (adenosine triphosphate)" → "ATP": a card may name a term with its other name in brackets. */
const stripAlias = (answer: string) => answer.replace(/\s+\([^()]*\)$/, "");

// ---------------------------------------------------------------------------------------------------------
// Items: flashcards and questions read back into what they ask

export const BLANK = /_{3,}/;

export type ItemKind =
  "cloze" | "definition" | "reverse-definition" | "context" | "mc-definition" | "mc-cloze" | "true-statement" | "false-statement" | "unrecognised";

/**
 * A card or question read back. `answer` is what the student must produce: the blank of a cloze card or
 * question, the term a definition or context card names (or asks for), a multiple-choice question's correct
 * option; for a false statement, the term the notes say where the statement swapped another in; null for a
 * true statement. `statement` is the sentence of the notes the item was built on, as the item quotes it.
 * `quoted` is every piece of text the item shows as taken from the notes.
 */
export interface Item {
  kind: ItemKind;
  /** What the student sees, and the other side, for reports. */
  prompt: string;
  reply: string;
  answer: string | null;
  statement: string | null;
  quoted: string[];
  /** A cloze card or question: the text with its blanks. */
  blanked?: string;
  /** A false statement: the text shown, what was swapped in, for what. */
  swap?: { shown: string; original: string; replacement: string };
  distractors: string[];
}

export interface CardLike {
  front: string;
  back: string;
}

export interface QuestionLike {
  question: string;
  type: string;
  options: string[];
  correctAnswer: string;
  explanation: string;
}

const withoutArticle = (text: string) => text.replace(/^(?:the|a|an)\s+/i, "");
const withoutFinalStop = (text: string) => text.replace(/\.$/, "");

/** The pieces of a text with blanks, the blanks left out. */
const aroundBlanks = (text: string) =>
  text
    .split(new RegExp(BLANK.source, "g"))
    .map((piece) => piece.trim())
    .filter((piece) => /[\p{L}\p{N}]/u.test(piece));

/** The definition-card fronts of the offline generator ("What is X?", "What does X refer to?", …): the term. */
const DEFINITION_FRONTS = [
  /^What (?:is|are) (.+)\?$/s,
  /^What does (.+) refer to\?$/s,
  /^How (?:is|are) (.+) defined\?$/s,
  /^What does (.+?) \w+\?$/s,
];

/**
 * A flashcard read back. Cloze: a front with a blank, a back "answer — statement". Definition: one of the
 * definition fronts, the back the definition. Reverse definition: "Which term is this? …", back "Term. statement".
 * Context: "What do your notes say about X?", the back the statement. Anything else is "unrecognised": its back
 * counts as the answer when it is a short phrase, and nothing of it is checked as quoted.
 */
export function readFlashcard(card: CardLike, reference?: Reference): Item {
  const front = normalizeWhitespace(card.front);
  const back = normalizeWhitespace(card.back);
  const base = { prompt: front, reply: back, distractors: [] };
  if (BLANK.test(front)) {
    const split = /^(.+?) — (.+)$/s.exec(back);
    const answer = split ? split[1] : back;
    const statement = split ? split[2] : null;
    return { ...base, kind: "cloze", answer, statement, blanked: front, quoted: [...aroundBlanks(front), ...(statement ? [statement] : [])] };
  }
  const reverse = /^Which term is this\? (.+)$/s.exec(front);
  if (reverse) {
    const description = withoutFinalStop(reverse[1]);
    // "Term. Statement": the statement is the longest tail after ". " that the notes hold.
    const cuts = [...back.matchAll(/\. /g)].map((match) => match.index);
    const cut = cuts.find((index) => reference === undefined || reproduces(reference, back.slice(index + 2))) ?? cuts[0];
    const answer = cut === undefined ? back : back.slice(0, cut);
    const statement = cut === undefined ? null : back.slice(cut + 2);
    return { ...base, kind: "reverse-definition", answer, statement, quoted: [description, ...(statement ? [statement] : [])] };
  }
  const context = /^What do your notes say about (.+)\?$/s.exec(front);
  if (context) return { ...base, kind: "context", answer: withoutArticle(context[1]), statement: back, quoted: [back] };
  for (const pattern of DEFINITION_FRONTS) {
    const match = pattern.exec(front);
    if (match) return { ...base, kind: "definition", answer: withoutArticle(match[1]), statement: null, quoted: [withoutFinalStop(back)] };
  }
  const shortBack = back.split(" ").length <= 5 && !/[.!?]/.test(back.slice(0, -1));
  return { ...base, kind: "unrecognised", answer: shortBack ? withoutFinalStop(back) : null, statement: null, quoted: [] };
}

/**
 * A question read back. True/false: "True or false: <statement>"; a false one's explanation says what was
 * swapped ("puts "X" where the notes say "Y": "<statement>"), else the swap is found by comparing the shown
 * statement with the sentence of the notes it differs least from. Multiple choice: the correct option is the
 * answer; "Which term matches this definition: "…"?" and "Complete the statement: "…"" quote the notes, and
 * the explanation ("The notes say: "…"", "The notes define X: "…"") gives the statement.
 */
export function readQuestion(question: QuestionLike, reference?: Reference): Item {
  const prompt = normalizeWhitespace(question.question);
  const explanation = normalizeWhitespace(question.explanation);
  if (question.type === "true_false") {
    const shown = prompt.replace(/^True or false:\s*/i, "");
    const base = {
      prompt,
      reply: explanation.startsWith(question.correctAnswer) ? explanation : `${question.correctAnswer}. ${explanation}`,
      distractors: [],
    };
    if (question.correctAnswer !== "False") return { ...base, kind: "true-statement", answer: null, statement: shown, quoted: [shown] };
    const said = /^False\. The statement puts "(.+?)" where the notes say "(.+?)": "(.+)"$/s.exec(explanation);
    const swap = said ? { shown, replacement: said[1], original: said[2], statement: said[3] } : reference ? findSwap(reference, shown) : null;
    if (!swap) return { ...base, kind: "false-statement", answer: null, statement: null, quoted: [] };
    return {
      ...base,
      kind: "false-statement",
      answer: swap.original,
      statement: swap.statement,
      quoted: [swap.statement, ...aroundReplacement(shown, swap.replacement)],
      swap: { shown, original: swap.original, replacement: swap.replacement },
    };
  }
  const answer = question.correctAnswer;
  const distractors = question.options.filter((option) => option !== answer);
  const said = /^The notes say: "(.+)"$/s.exec(explanation) ?? /^The notes define .+?: "(.+)"$/s.exec(explanation);
  const statement = said ? said[1] : null;
  const base = { prompt, reply: answer, answer, statement, distractors };
  const definition = /^Which term matches this definition: "(.+)"\?$/s.exec(prompt);
  if (definition) return { ...base, kind: "mc-definition", quoted: [definition[1], ...(statement ? [statement] : [])] };
  const cloze = /^Complete the statement: "(.+)"$/s.exec(prompt);
  if (cloze) return { ...base, kind: "mc-cloze", blanked: cloze[1], quoted: [...aroundBlanks(cloze[1]), ...(statement ? [statement] : [])] };
  const quotedParts = [...prompt.matchAll(/"([^"]+)"/g)].map((match) => match[1]).flatMap(aroundBlanks);
  return { ...base, kind: "unrecognised", quoted: [...quotedParts, ...(statement ? [statement] : [])] };
}

/** The shown statement's text around the swapped-in term, an "a"/"an" before it left out (the swap may change it). */
function aroundReplacement(shown: string, replacement: string): string[] {
  return shown
    .split(new RegExp(escapeRegExp(replacement), "i"))
    .map((piece) => piece.replace(/(?:^|\s)(?:a|an)\s*$/i, "").trim())
    .filter((piece) => /[\p{L}\p{N}]/u.test(piece));
}

/**
 * Without an explanation saying so, the swap is read off the sentence of the notes sharing the most words
 * with the shown statement: the words where the two differ, after their common start and end.
 */
function findSwap(reference: Reference, shown: string): { statement: string; original: string; replacement: string } | null {
  const shownWords = shown.split(/\s+/);
  const best = bestSentence(reference, shown);
  if (!best) return null;
  const sentenceWords = best.split(/\s+/);
  let head = 0;
  while (head < shownWords.length && head < sentenceWords.length && shownWords[head].toLowerCase() === sentenceWords[head].toLowerCase()) head += 1;
  let tail = 0;
  while (
    tail < shownWords.length - head &&
    tail < sentenceWords.length - head &&
    shownWords[shownWords.length - 1 - tail].toLowerCase() === sentenceWords[sentenceWords.length - 1 - tail].toLowerCase()
  )
    tail += 1;
  const clean = (words: string[]) => words.join(" ").replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
  const original = clean(sentenceWords.slice(head, sentenceWords.length - tail));
  const replacement = clean(shownWords.slice(head, shownWords.length - tail));
  return original && replacement ? { statement: best, original, replacement } : null;
}

/** The sentence of the notes sharing the largest share of its words with `text` (at least half), or null. */
function bestSentence(reference: Reference, text: string): string | null {
  const words = new Set(wordsOf(text));
  let best: { sentence: string; share: number } | null = null;
  for (const sentence of splitSentences(reference.source.text)) {
    const sentenceWords = wordsOf(sentence);
    const share = sentenceWords.filter((word) => words.has(word)).length / Math.max(1, sentenceWords.length);
    if (share >= 0.5 && (!best || share > best.share)) best = { sentence, share };
  }
  return best?.sentence ?? null;
}

/**
 * The sentence an item was built on: its own statement when it quotes one, else the sentence of the notes
 * holding its longest quoted piece (a definition card quotes only the definition), else the sentence sharing
 * most of its words. A definition by reference spans two sentences ("…called RuBP. This step is called carbon
 * fixation."): when the sentence found does not name the item's answer and the next one does, both are.
 */
export function statementOf(reference: Reference, item: Item): string | null {
  if (item.statement) return item.statement;
  const pieces = [...item.quoted].sort((a, b) => b.length - a.length);
  const sentences = splitSentences(reference.source.text);
  for (const piece of pieces) {
    const index = sentences.findIndex((sentence) => containsExcerpt(reference, sentence, withoutFinalStop(piece)));
    if (index < 0) continue;
    const answer = item.answer ? stripAlias(item.answer) : null;
    const next = sentences[index + 1];
    const names = (sentence: string) => answer !== null && wholeWordMatches(sentence, withoutArticle(answer)).length > 0;
    return next !== undefined && !names(sentences[index]) && names(next) ? `${sentences[index]} ${next}` : sentences[index];
  }
  return bestSentence(reference, `${item.prompt} ${item.reply}`);
}

// ---------------------------------------------------------------------------------------------------------
// Text fidelity

/**
 * Whether a piece the item shows as taken from the notes reproduces them: it occurs in the note's text with
 * only white space normalised, allowing (a) a changed case of its first letter (a statement starts with a
 * capital), (b) a full stop added at its end, (c) markdown bold (`**`) around words, and for transcripts
 * (d) the engine's pause punctuation and case (see looseText). Everything else — a lost space, a changed
 * letter, a dropped word inside — is a corruption.
 */
export function reproduces(reference: Reference, piece: string): boolean {
  const text = normalizeWhitespace(piece.replace(/\*\*/g, ""));
  if (!/[\p{L}\p{N}]/u.test(text)) return true;
  for (const candidate of [text, withoutFinalStop(text)]) {
    if (!candidate) continue;
    const first = candidate.charAt(0);
    const recased = (first === first.toUpperCase() ? first.toLowerCase() : first.toUpperCase()) + candidate.slice(1);
    if (reference.normalized.includes(candidate) || reference.normalized.includes(recased)) return true;
    if (reference.source.kind === "transcript" && reference.loose.includes(looseText(candidate))) return true;
  }
  return false;
}

/**
 * Words of the output that are two words of the notes glued together ("cannotgrow", "don'tstop"): a word not
 * in the notes that splits into two words that are. Catches lost spaces in template text too (titles,
 * objectives, tips), where nothing is quoted.
 */
export function gluedWords(reference: Reference, text: string): string[] {
  return wordsOf(text.replace(/\*\*/g, "")).filter((word) => {
    if (reference.words.has(word)) return false;
    for (let cut = 2; cut <= word.length - 2; cut += 1) {
      if (reference.words.has(word.slice(0, cut)) && reference.words.has(word.slice(cut))) return true;
    }
    return false;
  });
}

/** Why an item's text does not reproduce the notes (empty when it does). */
export function corruption(reference: Reference, item: Item): string[] {
  const problems = item.quoted.filter((piece) => !reproduces(reference, piece)).map((piece) => `not in the notes as written: "${piece}"`);
  if (item.answer && !inSource(reference, stripAlias(item.answer)) && !inSource(reference, item.answer))
    problems.push(`answer not in the notes: "${item.answer}"`);
  const glued = gluedWords(reference, `${item.prompt} ${item.reply}`);
  if (glued.length) problems.push(`glued words: ${[...new Set(glued)].join(", ")}`);
  return problems;
}

// ---------------------------------------------------------------------------------------------------------
// Tags (compromise), by character span

interface TaggedTerm {
  text: string;
  tags: Set<string>;
  start: number;
  end: number;
  post: string;
}

interface CompromiseTerm {
  text: string;
  tags: string[];
  post: string;
  offset: { start: number; length: number };
}

const taggedCache = new Map<string, TaggedTerm[]>();

/** compromise's terms of a text with their tags and character offsets (memoised: texts repeat across runs). */
export function tagged(text: string): TaggedTerm[] {
  let terms = taggedCache.get(text);
  if (!terms) {
    const sentences = nlp(text).json({ offset: true }) as { terms: CompromiseTerm[] }[];
    terms = sentences
      .flatMap((sentence) => sentence.terms)
      .filter((term) => term.text !== "")
      .map((term) => ({
        text: term.text,
        tags: new Set(term.tags),
        start: term.offset.start,
        end: term.offset.start + term.offset.length,
        post: term.post,
      }));
    if (taggedCache.size > 5_000) taggedCache.clear();
    taggedCache.set(text, terms);
  }
  return terms;
}

/** The terms of `context` covering the first whole-word mention of `phrase` (the phrase alone when the context lacks it). */
function termsOfPhrase(phrase: string, context: string | null): { terms: TaggedTerm[]; before?: TaggedTerm; after?: TaggedTerm } {
  const text = context ?? phrase;
  const match = wholeWordMatches(text, phrase)[0];
  if (!match) return context ? termsOfPhrase(phrase, null) : { terms: tagged(phrase) };
  const all = tagged(text);
  const inside = all.filter((term) => term.end > match.start && term.start < match.end);
  const first = all.indexOf(inside[0]);
  return { terms: inside, before: first > 0 ? all[first - 1] : undefined, after: all[first + inside.length] };
}

// ---------------------------------------------------------------------------------------------------------
// Malformed answers

/** Words that cannot start or end an answer (articles may start one: "the Himalayas"). */
const FUNCTION_WORDS = new Set(
  (
    "a an the of in on at to for from by with into onto over under about as than between through during before after and or but nor so yet " +
    "that which who whom whose this these those it its they their them he she his her we our you your i is are was were be been being " +
    "has have had do does did can could will would shall should may might must not very also such each every both some any no"
  ).split(" "),
);
const ARTICLES = new Set(["a", "an", "the"]);

/** A verb form that makes a clause (not a gerund or a base form, which compromise also gives to nouns). */
const isClauseVerb = (tags: Set<string>) =>
  tags.has("Verb") &&
  !tags.has("Gerund") &&
  !tags.has("Noun") &&
  !tags.has("Adjective") &&
  (tags.has("PastTense") ||
    tags.has("Modal") ||
    tags.has("Auxiliary") ||
    tags.has("Copula") ||
    (tags.has("PresentTense") && !tags.has("Infinitive")));

/** Word classes that carry no content of their own. */
const FUNCTION_TAGS = ["Preposition", "Conjunction", "Determiner", "Pronoun", "Copula", "Auxiliary", "Modal", "Adverb", "QuestionWord"];
const isFunctionOnly = (tags: Set<string>) =>
  FUNCTION_TAGS.some((tag) => tags.has(tag)) && !["Noun", "Adjective", "Value", "ProperNoun", "Acronym"].some((tag) => tags.has(tag));

/**
 * The clause verb of a phrase of several words: a word compromise tags as a finite verb both in the sentence
 * and in the phrase alone (its guesses on unknown plurals — "membranes", "earthquakes" — differ between the
 * two); as the last word after a common noun, a past tense is a participle ("quantity demanded") and an -s
 * form a plural ("thylakoid membranes").
 */
function clauseVerb(inContext: readonly TaggedTerm[], alone: readonly TaggedTerm[]): TaggedTerm | undefined {
  if (inContext.length < 2) return undefined;
  return inContext.find((term, index) => {
    if (!isClauseVerb(term.tags)) return false;
    const same = alone.find((other) => other.text.toLowerCase() === term.text.toLowerCase());
    if (!same || !isClauseVerb(same.tags)) return false;
    if (index === inContext.length - 1) {
      const previous = inContext[index - 1];
      // "quantity demanded": a participle after a common noun; "thylakoid membranes", "goods and services": a plural.
      if (term.tags.has("PastTense") && previous.tags.has("Noun") && !previous.tags.has("ProperNoun")) return false;
      if (term.tags.has("PresentTense") && /s$/i.test(term.text) && !previous.tags.has("ProperNoun") && !previous.tags.has("Pronoun")) return false;
    }
    return true;
  });
}

/** A phrase of several words opening with a finite verb in its sentence ("proposed continental drift"). */
const leadingVerb = (inContext: readonly TaggedTerm[]) =>
  inContext.length >= 2 && isClauseVerb(inContext[0].tags) && !inContext[0].tags.has("Copula") ? inContext[0] : undefined;

/** A phrase ending in a verb right after a plural noun, its subject ("plates slide"). */
function trailingVerb(inContext: readonly TaggedTerm[]): TaggedTerm | undefined {
  const last = inContext[inContext.length - 1];
  const previous = inContext[inContext.length - 2];
  if (!previous || !last.tags.has("Verb") || last.tags.has("Noun") || last.tags.has("Gerund") || last.tags.has("PastTense")) return undefined;
  return previous.tags.has("Plural") && !previous.tags.has("ProperNoun") && !/s$/i.test(last.text) ? last : undefined;
}

/**
 * Why an answer is malformed (empty when it is not): (1) it does not occur in the notes as whole words (case
 * aside); (2) it starts or ends with a function word ("of", "that", "its"…; an article may start it); (3) it
 * is only part of a hyphenated word everywhere in the notes ("light" of "light-dependent"); (4) it holds a verb
 * that makes a clause ("Wegener proposed", "proposed continental drift", "plates slide"; see clauseVerb); (5) a plural common noun runs into another common
 * noun ("boundaries plates": two phrases cut together); (6) every word is a function word by compromise's tags
 * ("as along"). Adjectives pass: a teacher accepts "stable" or "elastic" as an answer.
 */
export function malformedReasons(reference: Reference, answer: string, context: string | null): string[] {
  const reasons: string[] = [];
  const phrase = normalizeWhitespace(stripAlias(answer));
  const words = wordsOf(phrase);
  if (!words.length) return ["empty"];
  if (!inSource(reference, phrase)) reasons.push("not in the notes as written");
  const first = words[0];
  const last = words[words.length - 1];
  if ((FUNCTION_WORDS.has(first) && !ARTICLES.has(first)) || FUNCTION_WORDS.has(last))
    reasons.push(`starts or ends with a function word ("${FUNCTION_WORDS.has(last) ? last : first}")`);
  const mentions = wholeWordMatches(reference.normalized, phrase);
  const text = reference.normalized;
  if (mentions.length && mentions.every(({ start, end }) => text[start - 1] === "-" || text[end] === "-")) reasons.push("part of a hyphenated word");
  const sentence =
    context && wholeWordMatches(context, phrase).length
      ? context
      : (splitSentences(reference.source.text).find((candidate) => wholeWordMatches(candidate, phrase).length) ?? null);
  const inContext = termsOfPhrase(phrase, sentence).terms;
  const alone = tagged(phrase);
  const verb = clauseVerb(inContext, alone) ?? leadingVerb(inContext) ?? trailingVerb(inContext);
  if (verb) reasons.push(`holds a verb ("${verb.text}")`);
  const runOn = inContext.findIndex(
    (term, index) =>
      index < inContext.length - 1 &&
      term.tags.has("Plural") &&
      !term.tags.has("ProperNoun") &&
      !/['’]s?$/.test(term.text) &&
      !/[,;:]/.test(term.post) &&
      inContext[index + 1].tags.has("Noun") &&
      !inContext[index + 1].tags.has("ProperNoun"),
  );
  if (runOn >= 0) reasons.push(`two noun phrases run together ("${inContext[runOn].text} ${inContext[runOn + 1].text}")`);
  if (inContext.every((term) => isFunctionOnly(term.tags))) reasons.push("no content word in it");
  return reasons;
}

/**
 * A blank cut out of a longer key term: with the answer put back into its first blank, a labelled key term
 * of more words covers the blank ("The Mid-Atlantic _____ separates…" → "Ridge" of "Mid-Atlantic Ridge"; "where
 * the Indian _____ collided" → "plate" of "Indian plate"). An answer that is itself a listed form of that same key
 * term is not cut ("ocean trenches" of "deep ocean trenches"). The longer term, or null.
 */
export function cutFromLongerTerm(reference: Reference, blanked: string, answer: string): string | null {
  const at = blanked.search(BLANK);
  if (at < 0) return null;
  const blankLength = (BLANK.exec(blanked.slice(at)) ?? [""])[0].length;
  const filled = `${blanked.slice(0, at)}${answer}${blanked.slice(at + blankLength)}`;
  const start = at;
  const end = at + answer.length;
  const answerWords = wordsOf(answer).length;
  const answerTerm = keyTermOf(reference, answer);
  for (const term of reference.source.keyTerms) {
    if (term.term === answerTerm) continue;
    for (const form of [term.term, ...term.also]) {
      if (wordsOf(form).length <= answerWords) continue;
      const covering = wholeWordMatches(filled, form).find((match) => match.start <= start && match.end >= end);
      if (covering) return filled.slice(covering.start, covering.end);
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// False statements that are false for a trivial reason

export const KINDS = ["year", "number", "person", "place", "organization", "work", "thing"] as const;
export type Kind = (typeof KINDS)[number];

const YEAR = /^(?:1\d{3}|20\d{2})$/;
/** A quantity: starts with a number ("1.4 solar masses", "£100", "2 per cent"); "C4 plants" or "carbon-14" do not. */
const QUANTITY = /^[£$€]?\d[\d.,]*(?:\s|%|$)/;

/**
 * What a term names. The labels say it for the names and numbers of the set (a key term's `kind`); else a
 * year (four digits, 1000-2099) or a quantity (see QUANTITY) by its form; any other key term is a thing; a
 * term off the list is a person or a place when compromise tags it so both in its sentence and on its own
 * (its guesses on names vary: "San Andreas Fault" comes out as a person), else a thing.
 */
export function kindOf(reference: Reference, term: string, context: string | null): Kind {
  const key = normalizeTerm(stripAlias(term));
  const labelled = reference.kinds.get(key);
  if (labelled) return labelled;
  const text = normalizeWhitespace(stripAlias(term));
  if (YEAR.test(text)) return "year";
  if (QUANTITY.test(text)) return "number";
  if (reference.forms.has(key)) return "thing";
  const inContext = termsOfPhrase(text, context).terms;
  const alone = tagged(text);
  if (alone.length > 0 && alone.every((t) => t.tags.has("Value"))) return "number";
  const both = (tag: string) => inContext.some((t) => t.tags.has(tag)) && alone.some((t) => t.tags.has(tag));
  if (both("Person") && /^\p{Lu}/u.test(text)) return "person";
  if (both("Place")) return "place";
  return "thing";
}

/**
 * Why a false true/false statement is false for a trivial reason, one a student can see without knowing the
 * subject (empty when none): (1) the swapped-in term is of another kind than the one the notes say (a year
 * for a thing, a person for a place; see kindOf; an "a"/"an" is no kind); (2) it now appears twice or more, or a word repeats side by
 * side ("light carbon into chemical carbon", "plate plate"); (3) only the head of a longer noun phrase was
 * swapped (the notes' term had a noun or adjective right before or a noun right after it, so the statement
 * reads "light carbon"); (4) the swapped-in term is itself malformed (see malformedReasons); (5) "a" or "an"
 * now stands before a plural ("responds to a goods in price").
 */
export function triviallyFalseReasons(
  reference: Reference,
  swap: { shown: string; original: string; replacement: string },
  statement: string,
): string[] {
  const reasons: string[] = [];
  const originalKind = kindOf(reference, swap.original, statement);
  const replacementKind = kindOf(reference, swap.replacement, swap.shown);
  if (originalKind !== replacementKind)
    reasons.push(`a ${replacementKind} put in for a ${originalKind} ("${swap.replacement}" for "${swap.original}")`);
  const shownWords = wordsOf(swap.shown);
  const mentions = wholeWordMatches(swap.shown, swap.replacement).length;
  const doubled = shownWords.find((word, index) => index > 0 && word === shownWords[index - 1] && !/^\d+$/.test(word));
  if (mentions >= 2) reasons.push(`"${swap.replacement}" appears ${mentions} times`);
  else if (doubled) reasons.push(`"${doubled} ${doubled}"`);
  const original = termsOfPhrase(swap.original, statement);
  const { before, after } = original;
  const all = statement ? tagged(statement) : [];
  const beforeIndex = before ? all.indexOf(before) : -1;
  // A modifier: an adjective, a common noun, or a one-word name ("Indian plate", "Emperor Meiji"); a name of
  // several words ends a phrase of its own ("In the United Kingdom inflation is…").
  const beforeMods =
    before !== undefined &&
    !/[,;:.]/.test(before.post) &&
    (before.tags.has("Adjective") ||
      (before.tags.has("Noun") && !before.tags.has("ProperNoun") && !before.tags.has("Pronoun") && !before.tags.has("Possessive")) ||
      (before.tags.has("ProperNoun") && !(beforeIndex > 0 && all[beforeIndex - 1].tags.has("ProperNoun")))) &&
    !before.tags.has("Determiner") &&
    !before.tags.has("Value");
  const lastOriginal = original.terms[original.terms.length - 1];
  const afterMods =
    after !== undefined &&
    lastOriginal !== undefined &&
    !/[,;:.]/.test(lastOriginal.post) &&
    after.tags.has("Noun") &&
    !after.tags.has("Pronoun") &&
    !after.tags.has("Determiner") &&
    !after.tags.has("Value");
  if (beforeMods || afterMods)
    reasons.push(
      `only part of a noun phrase swapped ("${beforeMods ? `${before.text} ${swap.original}` : `${swap.original} ${after?.text ?? ""}`}")`,
    );
  const malformed = malformedReasons(reference, swap.replacement, null).filter((reason) => reason !== "not in the notes as written");
  if (malformed.length) reasons.push(`swapped-in term malformed: ${malformed.join("; ")}`);
  // An article that no longer agrees: "a" or "an" before a plural put in ("responds to a goods in price").
  const replacementTerms = termsOfPhrase(swap.replacement, swap.shown);
  const head = replacementTerms.terms[replacementTerms.terms.length - 1];
  const article = replacementTerms.before?.text.toLowerCase();
  if ((article === "a" || article === "an") && head?.tags.has("Plural") && /s$/i.test(head.text))
    reasons.push(`"${article} ${swap.replacement}": an article before a plural`);
  return reasons;
}

// ---------------------------------------------------------------------------------------------------------
// Garbled transcript text

/**
 * Whether a text was built from a segment labelled garbled: it holds three words in a row that occur in a
 * garbled segment and nowhere else in the notes.
 */
export function fromGarbled(reference: Reference, text: string): boolean {
  if (!reference.garbledTrigrams.size) return false;
  return trigrams(wordsOf(text)).some((trigram) => reference.garbledTrigrams.has(trigram));
}

// ---------------------------------------------------------------------------------------------------------
// A set of cards or questions, scored

export interface ItemScore {
  index: number;
  item: Item;
  /** The sentence it was built on (see statementOf). */
  statement: string | null;
  /** The key term its answer names, null when none (or no answer). */
  keyTerm: string | null;
  /** The key facts whose excerpt its statement holds. */
  facts: string[];
  /** Precision: a term answer that is a key term; a true/false statement on a key fact (a false one: and its original term a key term). */
  onTarget: boolean;
  /** The facts it asks about (see recalledFacts). */
  recalls: string[];
  malformed: string[];
  corrupted: string[];
  triviallyFalse: string[];
  garbled: boolean;
}

export interface SetScore {
  requested: number;
  returned: number;
  items: ItemScore[];
  /** Term answers (not true/false) given more than once in the set, one key term's names counted as one: answer → how often. */
  duplicates: Record<string, number>;
  /** Answers beyond the first of each repeated one. */
  duplicateCount: number;
  /** Facts asked about, and the share of min(requested, facts) that is. */
  recalledFacts: string[];
  recall: number;
  /** Whether the set has what was asked for, or fewer with a reason in its description or message. */
  countMet: boolean;
  reasonGiven: boolean;
  /** The labelled facts are at least as many as requested: a short set is then a failure even with a reason. */
  enoughFacts: boolean;
  unrecognised: number;
}

/** Words by which a set's description or message says why it has fewer items than asked for. */
const SHORT_REASON = /\b(?:fewer|only|not enough|too (?:few|little)|distinct|request(?:ed)?|asked)\b/i;

/**
 * Scores one generated set. An item asks about a fact (recall) when its statement holds the fact's excerpt
 * and its answer is one of the fact's answers (a true statement has no answer: the statement is what it
 * asks); a trivially false statement asks about nothing. Recall = facts asked about / min(requested, facts):
 * a set of 10 cannot ask about more than 10 facts.
 */
export function scoreSet(reference: Reference, items: Item[], requested: number, message: string): SetScore {
  const scores = items.map((item, index): ItemScore => {
    const statement = statementOf(reference, item);
    const facts = statement
      ? reference.source.keyFacts.filter((fact) => containsExcerpt(reference, statement, fact.excerpt)).map((fact) => fact.id)
      : [];
    const keyTerm = item.answer ? keyTermOf(reference, item.answer) : null;
    const isStatement = item.kind === "true-statement" || item.kind === "false-statement";
    const onTarget = isStatement ? facts.length > 0 && (item.kind === "true-statement" || keyTerm !== null) : keyTerm !== null;
    const triviallyFalse = item.swap && statement ? triviallyFalseReasons(reference, item.swap, statement) : [];
    const answerForm = item.answer ? normalizeTerm(stripAlias(item.answer)) : null;
    const recalls = triviallyFalse.length
      ? []
      : facts.filter((id) =>
          answerForm === null
            ? item.kind === "true-statement" || item.kind === "unrecognised"
            : (reference.factForms.get(id)?.has(answerForm) ?? false),
        );
    const malformed = item.answer && !isStatement ? malformedReasons(reference, item.answer, statement) : [];
    const longer = item.blanked && item.answer ? cutFromLongerTerm(reference, item.blanked, item.answer) : null;
    if (longer) malformed.push(`cut from the longer key term "${longer}"`);
    const texts = [item.prompt, item.reply, ...item.quoted];
    return {
      index,
      item,
      statement,
      keyTerm,
      facts,
      onTarget,
      recalls,
      malformed,
      corrupted: corruption(reference, item),
      triviallyFalse,
      garbled: texts.some((text) => fromGarbled(reference, text)),
    };
  });
  const counts = new Map<string, { shown: string; count: number }>();
  for (const { item } of scores) {
    if (!item.answer || item.kind === "true-statement" || item.kind === "false-statement") continue;
    // Two names of one key term ("Alfred Wegener", "Wegener") are one answer.
    const key = keyTermOf(reference, item.answer) ?? normalizeTerm(stripAlias(item.answer));
    const entry = counts.get(key) ?? { shown: item.answer, count: 0 };
    entry.count += 1;
    counts.set(key, entry);
  }
  const duplicates = Object.fromEntries([...counts.values()].filter((entry) => entry.count > 1).map((entry) => [entry.shown, entry.count]));
  const recalledFacts = [...new Set(scores.flatMap((score) => score.recalls))];
  const facts = reference.source.keyFacts.length;
  return {
    requested,
    returned: items.length,
    items: scores,
    duplicates,
    duplicateCount: Object.values(duplicates).reduce((sum, count) => sum + count - 1, 0),
    recalledFacts,
    recall: recalledFacts.length / Math.max(1, Math.min(requested, facts)),
    countMet: items.length >= requested,
    reasonGiven: SHORT_REASON.test(message),
    enoughFacts: facts >= requested,
    unrecognised: items.filter((item) => item.kind === "unrecognised").length,
  };
}

// ---------------------------------------------------------------------------------------------------------
// The study guide

export interface GuideLike {
  title: string;
  description: string;
  overview: string;
  keyTerms: string[];
  learningObjectives: string[];
  studyTips: string[];
  sections: { title: string; content: string; subsections?: { title: string; content: string }[] }[];
}

export interface GuideScore {
  /** Facts whose excerpt the guide's overview, sections or subsections hold, and their share. */
  coveredFacts: string[];
  factCoverage: number;
  /** The notes' sentences (garbled ones aside) the guide holds, and their share. */
  coveredSentences: number;
  sentenceCoverage: number;
  /** The guide's key terms that are labelled key terms, and the others. */
  keyTermPrecision: number;
  offListKeyTerms: string[];
  /** Terms the learning objectives name ("Define X", "Explain how X relates to Y", "Compare X and Y") that are no key term. */
  offListObjectiveTerms: string[];
  corrupted: string[];
  garbled: string[];
}

/** The guide's text taken from the notes: the overview's sentences, the sections' bullets and the subsections. */
export function guidePieces(guide: GuideLike): string[] {
  const sectionLines = guide.sections.flatMap((section) =>
    section.content
      .split("\n")
      .map((line) => line.replace(/^\s*(?:[-*]|\d+\.)\s+/, ""))
      .concat((section.subsections ?? []).map((subsection) => subsection.content)),
  );
  return [...splitSentences(guide.overview), ...sectionLines].map((piece) => normalizeWhitespace(piece.replace(/\*\*/g, ""))).filter(Boolean);
}

const OBJECTIVE_TERMS = [
  /^Define (.+) in your own words\.$/,
  /^Explain how (.+) relates to (.+)\.$/,
  /^Compare (.+) and (.+)\.$/,
  /^Explain what the notes say about (.+)\.$/,
];

export function scoreGuide(reference: Reference, guide: GuideLike): GuideScore {
  const pieces = guidePieces(guide);
  const body = pieces.join("\n");
  const holds = (text: string) => containsExcerpt(reference, body, withoutFinalStop(text));
  const coveredFacts = reference.source.keyFacts.filter((fact) => holds(fact.excerpt)).map((fact) => fact.id);
  const coveredSentences = reference.source.sentences.filter(holds).length;
  const offListKeyTerms = guide.keyTerms.filter((term) => keyTermOf(reference, term) === null);
  const objectiveTerms = guide.learningObjectives.flatMap((objective) => {
    for (const pattern of OBJECTIVE_TERMS) {
      const match = pattern.exec(objective);
      if (match) return match.slice(1).filter((term): term is string => term !== undefined);
    }
    return [];
  });
  const templateText = [
    guide.title,
    guide.description,
    ...guide.keyTerms,
    ...guide.learningObjectives,
    ...guide.studyTips,
    ...guide.sections.map((s) => s.title),
  ].join(" ");
  const glued = gluedWords(reference, `${templateText} ${body}`);
  return {
    coveredFacts,
    factCoverage: coveredFacts.length / Math.max(1, reference.source.keyFacts.length),
    coveredSentences,
    sentenceCoverage: coveredSentences / Math.max(1, reference.source.sentences.length),
    keyTermPrecision: guide.keyTerms.length ? (guide.keyTerms.length - offListKeyTerms.length) / guide.keyTerms.length : 0,
    offListKeyTerms,
    offListObjectiveTerms: objectiveTerms.filter((term) => keyTermOf(reference, term) === null),
    corrupted: [
      ...pieces.filter((piece) => !reproduces(reference, piece)).map((piece) => `not in the notes as written: "${piece}"`),
      ...[...new Set(glued)].map((word) => `glued words: ${word}`),
    ],
    garbled: pieces.filter((piece) => fromGarbled(reference, piece)),
  };
}
