// What flashcards, questions and guide sections share: how they are scored, linked and worded.
import { contentWords, ENGLISH_STOP_WORDS, normalizeTerm } from "@study/ai";
import type { SourceReference } from "../../../domain/study-material";
import type { StudyText } from "./analysis";
import type { Definition } from "./definitions";
import { compareText } from "./deterministic";
import { depthFit, rarityFit, type DifficultyProfile } from "./difficulty-profile";
import { containsTerm, type KeyTerm } from "./key-terms";
import { capitalize } from "./prose";
import { ARTICLES, canBeVerb, isCapitalised, textOfTokens, usedAsVerb, type Token } from "./tagging";
import type { TextUnit } from "./text-units";
import { canStartTerm, endsCompound, isNominal, SINGULAR_IN_S } from "./vocabulary";

const BLANK = "_____";
/** A unit is a usable fact between these lengths, in words. */
const SHORTEST_FACT_WORDS = 6;
const LONGEST_FACT_WORDS = 40;

const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

/** The note and the time the unit starts at, or the document and the page the unit is on. */
export const sourceOf = (unit: TextUnit): SourceReference =>
  unit.page === null ? { noteId: unit.sourceId, startTime: unit.startTime } : { documentId: unit.sourceId, page: unit.page };

/**
 * One everyday word, undefined and no name ("cell", "price", "order"): frequent in the notes, so it ranks
 * high, but a teacher asks for the subject's own terms ("sister chromatids", "law of demand") first.
 */
export const isEverydayWord = (term: KeyTerm) =>
  term.words.length === 1 && !term.specialist && !term.defined && term.entity === null && !term.isAcronym;
const EVERYDAY_WORD_FACTOR = 0.6;

/** A unit on a focus area outranks every other: the other factors of a score differ by less than this between units. */
const FOCUS_PRIORITY = 100;

/**
 * Score shared by cards and questions: the kind the level prefers, a term of the right rarity, a fact at the right
 * depth, an informative unit; a unit on a focus area above all.
 */
export function candidateScore(text: StudyText, profile: DifficultyProfile, kindWeight: number, term: KeyTerm, unit: TextUnit): number {
  const focus = text.focus[unit.id] ? FOCUS_PRIORITY : 1;
  return (
    focus *
    kindWeight *
    (isEverydayWord(term) ? EVERYDAY_WORD_FACTOR : 1) *
    (0.4 + 0.6 * rarityFit(profile, term.rarity)) *
    depthFit(profile, unit.position) *
    (0.5 + 0.5 * text.informativeness[unit.id])
  );
}

/** The order material is shown in: units on a focus area first, each group in text order. */
export function focusFirst(text: StudyText, a: number, b: number): number {
  return Number(text.focus[b]) - Number(text.focus[a]) || a - b;
}

/** The key term a definition defines (analysis keeps only definitions of key terms). */
export function termOf(text: StudyText, definition: Definition): KeyTerm {
  return text.terms.find((term) => term.key === definition.termKey) as KeyTerm;
}

/** A defined phrase's head is the term said short ("heart" for "the human heart"): an item on one asks the other. */
const definedHead = (term: KeyTerm): string[] => (term.defined && term.words.length > 1 ? [term.words[term.words.length - 1]] : []);

/**
 * A person's name (compromise's #Person on the name's first word, see key-terms.ts): asked about with "Who …?",
 * not "What …?" ("Who is Elinor Dashwood?").
 */
export const isPersonTerm = (term: KeyTerm) => term.entity === "person";

/** A name: a person, place, organization or other name, not a concept or a date. */
export const isNameTerm = (term: KeyTerm) => term.entity !== null && term.entity !== "date";

/** An answer written as a name: every word capitalised but the joins ("Carlill v Carbolic Smoke Ball Co"). */
export const isNameAnswer = (answer: Answer) =>
  answer.text.split(/\s+/).every((word) => NAME_JOINS.has(word) || /^\p{Lu}/u.test(word)) && !/^\p{Lu}+$/u.test(answer.text);

/**
 * The key term a definition says its term is ("The master clock is the suprachiasmatic nucleus in the
 * hypothalamus"): a card on the one and a card on the other ask the same. Not a class it belongs to ("ATP
 * synthase is an enzyme that …").
 */
export function equatedKeys(text: StudyText, definition: Definition): string[] {
  return text.termsByUnit[definition.unitId]
    .filter(
      (term) =>
        term.key !== definition.termKey &&
        new RegExp(`^(?:the\\s+)?(?:${term.pattern.source})(?:$|\\s+(?:in|of|on|at|inside|within)\\s)`, "iu").test(definition.description),
    )
    .map((term) => nameKey(text, term));
}

/**
 * The keys of what an item on `term` in this unit (blanking `answer`, when it is a cloze) asks besides its own
 * (see selectDiverse's sameAnswer): the term the unit defines it as or by ("The master clock is the
 * suprachiasmatic nucleus …", "The body's internal clock is the circadian rhythm"), a defined phrase's head
 * ("heart" for "the human heart"), and a defined term when the blank is a phrase around it that is no key term
 * ("a valid contract" asks what "What is a contract?" asks).
 */
export function sameAnswerKeys(text: StudyText, unitId: number, term: KeyTerm, answer?: Answer): string[] {
  const asTerm = answer === undefined || answer.isTerm;
  const aroundDefined = !asTerm && term.defined && !text.terms.some((other) => other.key === answer.key) ? [term.key] : [];
  return [...equatedWith(text, unitId, term, answer), ...(asTerm ? definedHead(term) : []), ...aroundDefined];
}

/** What the unit defines `term` as or by, and who says "A is the B" of it (see sameAnswerKeys). */
function equatedWith(text: StudyText, unitId: number, term: KeyTerm, answer?: Answer): string[] {
  return text.definitions
    .filter((definition) => definition.unitId === unitId)
    .flatMap((definition) => {
      const equated = equatedKeys(text, definition);
      if (definition.termKey === term.key) return equated;
      const defined = nameKey(text, termOf(text, definition));
      if (equated.includes(nameKey(text, term))) return [defined];
      // "A contract is a _____ between …" asks what "What is a contract?" asks.
      const opening =
        answer && new RegExp(`^(?:(?:the|a|an)\\s+)?${answer.text.split(/\s+/).map(escapeForPattern).join("\\s+")}(?![\\p{L}\\p{N}])`, "iu");
      return opening && opening.test(definition.description) ? [defined] : [];
    })
    .concat(identityPartners(text, unitId, answer?.text ?? term.display));
}

/**
 * Key terms the unit says are the answer, or the answer is, with a definite article ("The body's internal
 * clock is the circadian rhythm"): blanking either asks the same.
 */
const IDENTITY = /\s(?:is|are|was|were)\s+the\s/i;

function identityPartners(text: StudyText, unitId: number, answerText: string): string[] {
  const answer = answerText.split(/\s+/).map(escapeForPattern).join("[\\s-]+");
  const statement = text.units[unitId].statement;
  if (!IDENTITY.test(statement)) return [];
  // Each term's patterns are built only where the answer stands right before or after "is the": the Unicode
  // classes make every pattern costly to build, and most answers stand elsewhere (an hour's lecture spent ≈ 5 s of
  // its 12 s of generation building them).
  const answerIs = new RegExp(`(?<![\\p{L}\\p{N}])${answer}(?![\\p{L}\\p{N}])\\s+(?:is|are|was|were)\\s+the\\s+`, "iu").test(statement);
  const isAnswer = new RegExp(`\\s+(?:is|are|was|were)\\s+the\\s+${answer}(?![\\p{L}\\p{N}])`, "iu").test(statement);
  if (!answerIs && !isAnswer) return [];
  return text.termsByUnit[unitId]
    .filter((other) => {
      if (new RegExp(`^(?:${other.pattern.source})$`, "iu").test(answerText)) return false;
      const forward = () =>
        new RegExp(`(?<![\\p{L}\\p{N}])${answer}(?![\\p{L}\\p{N}])\\s+(?:is|are|was|were)\\s+the\\s+(?:${other.pattern.source})`, "iu");
      const backward = () => new RegExp(`(?:${other.pattern.source})\\s+(?:is|are|was|were)\\s+the\\s+${answer}(?![\\p{L}\\p{N}])`, "iu");
      return (answerIs && forward().test(statement)) || (isAnswer && backward().test(statement));
    })
    .map((other) => nameKey(text, other));
}

/** The term as a card names it, with its article and other name: "an enzyme", "ATP (adenosine triphosphate)". */
export function definedName(term: KeyTerm, definition: Definition): string {
  const name = definition.article ? `${definition.article} ${term.display}` : term.display;
  return definition.alias ? `${name} (${definition.alias})` : name;
}

/** A statement ending so was cut off mid-phrase (a pause in speech: "Atp synthase is an enzyme that."). */
const CUT_OFF = /(?<![\p{L}'’])(?:the|a|an|of|and|or|but|that|which|whose|its|their|than|very)[.!]?$/iu;

/** Whether the unit can stand as a fact: well-formed, sentence-sized, not a question, not cut off mid-phrase. */
export function isFact(text: StudyText, unit: TextUnit): boolean {
  if (text.garbled[unit.id]) return false;
  const words = wordCount(unit.statement);
  return words >= SHORTEST_FACT_WORDS && words <= LONGEST_FACT_WORDS && !unit.statement.includes("?") && !CUT_OFF.test(unit.statement);
}

/** The key terms a unit mentions, without those it only mentions inside a longer one ("electron" in "electron transport chain"). */
export function standaloneTerms(text: StudyText, unitId: number): KeyTerm[] {
  const present = text.termsByUnit[unitId];
  return present.filter((term) => !present.some((other) => other !== term && containsTerm(other, term)));
}

/** A term in more than this share of the units is what the whole text is about: blanking it asks little. */
const TOPIC_SHARE = 0.4;

/**
 * How good an answer the term makes in this unit: the level's rarity first (frequent terms for EASY, rare ones
 * for HARD), then what a teacher would ask: the term the unit defines, a name or a date (who, where, when),
 * a specific phrase over one word; the text's topic word least.
 */
export function answerSalience(text: StudyText, unitId: number, term: KeyTerm, profile: DifficultyProfile): number {
  let salience = rarityFit(profile, term.rarity);
  if (text.definitions.some((definition) => definition.unitId === unitId && definition.termKey === term.key)) salience += 0.5;
  if (term.entity !== null) salience += 0.35;
  if (term.words.length > 1) salience += 0.1;
  if (term.unitIds.length > TOPIC_SHARE * text.units.length) salience -= 0.5;
  if (isEverydayWord(term)) salience -= 0.3;
  return salience;
}

/** How many of a unit's terms may be asked about, each in an item of its own (a unit is asked twice only when units run out). */
export const ANSWERS_PER_UNIT = 3;
/** Each further answer of a unit scores this much less than the one before. */
export const NEXT_ANSWER_FACTOR = 0.8;

/** The unit's terms, best answer first (see answerSalience). */
export function termsToAskAbout(text: StudyText, unitId: number, profile: DifficultyProfile): KeyTerm[] {
  return standaloneTerms(text, unitId)
    .map((term) => ({ term, salience: answerSalience(text, unitId, term, profile) }))
    .sort((a, b) => b.salience - a.salience || b.term.weight - a.term.weight || compareText(a.term.key, b.term.key))
    .map(({ term }) => term);
}

/** The unit's best term to ask about. */
export function termToAskAbout(text: StudyText, unitId: number, profile: DifficultyProfile): KeyTerm | null {
  return termsToAskAbout(text, unitId, profile)[0] ?? null;
}

const globalPattern = (term: KeyTerm) => new RegExp(term.pattern.source, "giu");

/** Words that join capitalised names into one: "Carlill v Carbolic Smoke Ball Co", "Treaty of Versailles". */
const NAME_JOINS = new Set(["v", "v.", "vs", "vs.", "of", "on", "de", "von", "van", "del"]);
const LONGEST_ANSWER_WORDS = 8;
/** A name may run longer: "Pharmaceutical Society of Great Britain v Boots Cash Chemists". */
const LONGEST_NAME_WORDS = 10;
/** Words a set phrase may run on with after its noun: "law of demand", "invitation to treat". */
const PHRASE_LINKS = new Set(["of", "to"]);
/** How many units must say a longer phrase for it to count as a set phrase of the text. */
const SET_PHRASE_UNITS = 2;

/** Adjectives that say how often or what colour, not what kind: "frequent earthquakes", "the green pigment". */
const DESCRIBING_ADJECTIVES = new Set(
  "frequent infrequent rare occasional usual unusual regular constant green red blue yellow white black brown orange purple grey gray pink".split(
    " ",
  ),
);

/**
 * Whether a word before a noun says what kind of thing it is ("convergent boundaries", "guard cells", "oceanic
 * crust") rather than how it is or how much ("frequent earthquakes", "the deepest trench", "the green
 * pigment"), which is left out of the answer.
 */
function namesAKind(word: Token): boolean {
  return !word.tags.has("Superlative") && !word.tags.has("Comparative") && !DESCRIBING_ADJECTIVES.has(word.lower);
}

/**
 * Where the unit's words say the term as a noun, as [start, end); "verb" when the words are there only as a
 * verb ("litmus changes colour" for the term "change"); null when they are not there word for word.
 */
function mentionIn(tokens: readonly Token[], term: KeyTerm): [number, number] | "verb" | null {
  let found: "verb" | null = null;
  for (let start = 0; start + term.words.length <= tokens.length; start += 1) {
    if (term.words.every((word, offset) => tokens[start + offset].normal === word || tokens[start + offset].lower === word)) {
      const head = tokens[start + term.words.length - 1].tags;
      if (head.has("Verb") && !head.has("Noun") && term.entity === null && !term.isAcronym) found = "verb";
      else return [start, start + term.words.length];
    }
  }
  return found;
}

/**
 * The whole noun phrase a mention is part of, as [start, end): the nouns and adjectives before it (up to a
 * generic modifier such as "new"), the nouns after it, words joined by hyphens, and names joined into one
 * ("Carlill v Carbolic Smoke Ball Co"). Asking for "seafloor" in "seafloor spreading" or "energy" in "light
 * energy" asks for a fragment: the answer is the whole phrase.
 */
function wholePhrase(tokens: readonly Token[], [start, end]: [number, number]): [number, number] {
  let from = start;
  let to = end;
  while (from > 0 && to - from < LONGEST_NAME_WORDS) {
    const before = tokens[from - 1];
    if (before.endsPhrase) break;
    const inName =
      isCapitalised(tokens[from]) && isCapitalised(before) && from > 1 && (before.tags.has("ProperNoun") || tokens[from].tags.has("ProperNoun"));
    const twoBefore = tokens[from - 2];
    if (inName) from -= 1;
    else if (to - from >= LONGEST_ANSWER_WORDS) break;
    else if (joinsNames(before, twoBefore, tokens[from])) from -= 2;
    // "Battle of the Somme": "of the" between two capitalised words.
    else if (before.lower === "the" && joinsNames(twoBefore, tokens[from - 3], tokens[from]) && twoBefore.lower === "of" && !before.endsPhrase)
      from -= 3;
    // "the dashing John Willoughby", "her half-brother John Dashwood": a lower-case word before a name describes it.
    else if (isNameWord(tokens[from]) && !isCapitalised(before) && !before.hyphenatedToNext) break;
    // "the body's internal clock": the possessive opens the noun phrase.
    else if (/['’]s$/.test(before.text) && before.tags.has("Noun") && !before.tags.has("Pronoun")) from -= 1;
    // "the g one checkpoint", "p fifty three": a letter and a number said as words name one thing.
    else if (before.tags.has("Value") && !twoBefore?.endsPhrase && spokenCode(tokens, from - 1) !== null)
      from = spokenCode(tokens, from - 1) as number;
    else if (before.hyphenatedToNext || (isNominal(before) && canStartTerm(before) && !endsCompound(before) && namesAKind(before))) from -= 1;
    // "a legally binding agreement", "the sorting algorithm": a participle between an article or adverb and the noun.
    else if (isParticiple(before) && twoBefore !== undefined && !twoBefore.endsPhrase && (isArticle(twoBefore) || isLyAdverb(twoBefore)))
      from -= isLyAdverb(twoBefore) ? 2 : 1;
    // "domestic and social agreements": adjectives joined by "and"/"or" describe the noun together.
    else if (
      (before.lower === "and" || before.lower === "or") &&
      tokens[from].tags.has("Adjective") &&
      twoBefore?.tags.has("Adjective") &&
      !twoBefore.tags.has("Noun") &&
      !twoBefore.endsPhrase &&
      !(tokens[from - 3] && (isNominal(tokens[from - 3]) || tokens[from - 3].tags.has("Adjective")) && !tokens[from - 3].endsPhrase)
    )
      from -= 2;
    else break;
  }
  while (to < tokens.length && to - from < LONGEST_NAME_WORDS) {
    const last = tokens[to - 1];
    const next = tokens[to];
    if (last.endsPhrase || (endsCompound(last) && !last.hyphenatedToNext)) break;
    if (isCapitalised(last) && isCapitalised(next) && last.tags.has("ProperNoun") && next.tags.has("Noun")) to += 1;
    else if (joinsNames(next, last, tokens[to + 1])) to += 2;
    // "Battle of the Somme"; a person "of the United States Navy" is described, not named.
    else if (
      next.lower === "of" &&
      tokens[to + 1]?.lower === "the" &&
      !tokens[to + 1].endsPhrase &&
      !last.tags.has("Person") &&
      joinsNames(next, last, tokens[to + 2])
    )
      to += 3;
    // "O(n log n) time": a formula ends its phrase.
    else if (last.text.includes("(")) break;
    else if (to - from >= LONGEST_ANSWER_WORDS) break;
    // "the body's internal clock": a possessive is the start of the noun phrase it qualifies.
    else if (/['’]s$/.test(last.text) && (isNominal(next) || next.tags.has("Adjective"))) to += 1;
    // "the Sun end very differently": a noun followed the way a verb is, is the verb.
    else if (last.hyphenatedToNext || (isNominal(next) && next.tags.has("Noun") && !usedAsVerb(tokens, to))) to += 1;
    else break;
  }
  return [from, Math.min(to, tokens.length)];
}

/** Awards and degrees whose name goes on with "in" and a field: "Nobel Prize in Chemistry", "Master of Science in Physics". */
const FIELD_TITLES = new Set(["prize", "award", "medal", "degree", "diploma", "bachelor", "master", "doctorate", "science", "arts", "chair"]);

/** A capitalised proper noun inside the sentence: a name. */
const isNameWord = (token: Token) => isCapitalised(token) && token.tags.has("ProperNoun");

/**
 * A join between two capitalised words that makes them one name: "Carlill v Carbolic …", "Treaty of
 * Versailles"; "in" only after an award or a degree ("Nobel Prize in Chemistry").
 */
function joinsNames(join: Token, left: Token | undefined, right: Token | undefined): boolean {
  if (!left || !right || left.endsPhrase || join.endsPhrase || !isCapitalised(left) || !isCapitalised(right)) return false;
  // "in" names a field after an award or a degree ("Nobel Prize in Chemistry"); elsewhere it says where ("Barton Cottage in Devonshire").
  if (join.lower === "in") return FIELD_TITLES.has(left.lower);
  return NAME_JOINS.has(join.lower);
}

/** Where a spoken code starts when the number words ending at `last` follow a single letter ("g one", "p fifty three"); else null. */
function spokenCode(tokens: readonly Token[], last: number): number | null {
  let first = last;
  while (first > 0 && tokens[first - 1].tags.has("Value") && !tokens[first - 1].endsPhrase) first -= 1;
  const letter = tokens[first - 1];
  return letter && /^\p{L}$/u.test(letter.text) && !letter.endsPhrase && !["a", "i"].includes(letter.lower) ? first - 1 : null;
}

const isArticle = (token: Token) => ARTICLES.has(token.lower);
const isLyAdverb = (token: Token) => token.tags.has("Adverb") && /ly$/.test(token.lower);
const isParticiple = (token: Token) => (token.tags.has("Gerund") || token.tags.has("Participle")) && !token.endsPhrase;

/** Where a noun phrase may start: at the unit's start, after an article, a preposition or punctuation. */
const startsNounPhrase = (tokens: readonly Token[], index: number) => {
  const before = tokens[index - 1];
  return before === undefined || before.endsPhrase || isArticle(before) || before.tags.has("Preposition");
};

/** A bare noun (no article, name or pronoun): "demand" in "the law of demand". */
const isBareNoun = (token: Token | undefined) =>
  token !== undefined && isNominal(token) && token.tags.has("Noun") && !token.tags.has("ProperNoun") && !/['’]/.test(token.text);

/**
 * A noun phrase with "of" and a bare noun, said as one ("the law of demand", "price elasticity of demand"):
 * asking for the first or the last noun alone asks for a fragment of it.
 */
function ofPhrase(tokens: readonly Token[], [from, to]: [number, number]): [number, number] {
  const next = tokens[to];
  // "a basket of goods and services": the noun after "of" may be a pair.
  const withPair = (last: number) => {
    const link = tokens[last];
    const second = tokens[last + 1];
    // A plural after a plural, where compromise reads a verb in -s ("goods and services").
    const plural =
      second !== undefined &&
      second.tags.has("PresentTense") &&
      /[^s]s$/.test(second.lower) &&
      tokens[last - 1].tags.has("Plural") &&
      (second.endsPhrase || !isNominal(tokens[last + 2] ?? second));
    const joined = link && (link.lower === "and" || link.lower === "or") && !tokens[last - 1].endsPhrase && !link.endsPhrase;
    return joined && (isBareNoun(second) || plural) ? last + 2 : last;
  };
  if (next?.lower === "of" && !tokens[to - 1].endsPhrase && !next.endsPhrase && startsNounPhrase(tokens, from) && isBareNoun(tokens[to + 1])) {
    const end = withPair(isBareNoun(tokens[to + 2]) && !tokens[to + 1].endsPhrase ? to + 3 : to + 2);
    if (!isBareNoun(tokens[end]) || tokens[end - 1].endsPhrase) return [from, end];
  }
  const before = tokens[from - 1];
  if (before?.lower === "of" && !before.endsPhrase && isBareNoun(tokens[from]) && isBareNoun(tokens[from - 2]) && !tokens[from - 2].endsPhrase) {
    const [start] = wholePhrase(tokens, [from - 2, from - 1]);
    if (startsNounPhrase(tokens, start)) return [start, withPair(to)];
  }
  return binomial(tokens, [from, to]);
}

/** Before a pair of bare nouns said as one ("balancing reason and emotion"): a verb, a preposition or nothing. */
const opensPair = (token: Token | undefined) => token === undefined || token.tags.has("Verb") || token.tags.has("Preposition");

/**
 * Two bare nouns joined by "and"/"or" after a verb or preposition, one of them an everyday word, are one
 * phrase ("balancing reason and emotion", "between supply and demand"): one of them alone is half the
 * answer. Acronyms stand alone ("makes ATP and NADPH").
 */
function binomial(tokens: readonly Token[], [from, to]: [number, number]): [number, number] {
  if (to - from !== 1) return [from, to];
  const joins = (token: Token | undefined) => token !== undefined && (token.lower === "and" || token.lower === "or") && !token.endsPhrase;
  const pairs = (a: Token, b: Token | undefined) =>
    b !== undefined && isBareNoun(b) && (a.common || b.common) && ![a, b].some((token) => token.tags.has("Acronym") || /\p{Lu}{2}/u.test(token.text));
  const word = tokens[from];
  if (
    joins(tokens[from - 1]) &&
    pairs(word, tokens[from - 2]) &&
    !tokens[from - 2].endsPhrase &&
    opensPair(tokens[from - 3]) &&
    !isBareNoun(tokens[to])
  )
    return [from - 2, to];
  if (joins(tokens[to]) && !word.endsPhrase && pairs(word, tokens[to + 1]) && opensPair(tokens[from - 1]) && !isBareNoun(tokens[to + 2]))
    return [from, to + 2];
  return [from, to];
}

/** Each unit's words, lower case and plurals folded, between spaces (so whole words are found by `includes`). */
const foldedUnits = new WeakMap<StudyText, string[]>();

const folded = (words: string) =>
  ` ${words
    .toLowerCase()
    .split(/[^\p{L}\p{N}'’-]+/u)
    .filter(Boolean)
    .map(normalizeTerm)
    .join(" ")} `;

/** How many units say the words (any case, either number: "invitations to treat" is "invitation to treat"). */
function unitsSaying(text: StudyText, words: string): number {
  let units = foldedUnits.get(text);
  if (!units) foldedUnits.set(text, (units = text.units.map((unit) => folded(unit.text))));
  const phrase = folded(words);
  return units.filter((unit) => unit.includes(phrase)).length;
}

/**
 * A phrase the text uses as a set phrase, around a noun phrase: with a word before it that grammar does not
 * show as part of it ("Guard cells", where compromise reads a verb), with "of"/"to" and up to three words
 * after it ("law of demand", "invitation to treat"), or with a participle ("quantity demanded", "seafloor
 * spreading") — when at least two units say the longer phrase.
 */
function setPhrase(text: StudyText, tokens: readonly Token[], [from, to]: [number, number]): [number, number] {
  const said = (start: number, end: number) =>
    unitsSaying(
      text,
      tokens
        .slice(start, end)
        .map((token) => token.text)
        .join(" "),
    ) >= SET_PHRASE_UNITS;
  let start = from;
  let end = to;
  // Up to three words before, the longest said so ("intention to create legal relations"); a verb only alone.
  for (let length = 3; length >= 1; length -= 1) {
    const first = tokens[start - length];
    if (!first || tokens.slice(start - length, start).some((token) => token.endsPhrase || !/^[\p{L}-]+$/u.test(token.text))) continue;
    if (ENGLISH_STOP_WORDS.has(first.lower) || (length > 1 && first.tags.has("Verb"))) continue;
    if (tokens.slice(start - length, start).some((token) => token.tags.has("Determiner") || token.tags.has("Pronoun"))) continue;
    // "oil prices rise": a word in -s and a word that may be a verb are a subject and its verb.
    if (/[^s'’]s$/.test(tokens[start - 1].lower) && canBeVerb(tokens[start])) continue;
    if (said(start - length, end)) {
      start -= length;
      break;
    }
  }
  const next = tokens[end];
  if (next && !tokens[end - 1].endsPhrase) {
    if (PHRASE_LINKS.has(next.lower)) {
      for (let length = 3; length >= 1; length -= 1) {
        const last = end + length;
        if (
          last < tokens.length &&
          tokens.slice(end, last).every((token, offset) => offset === length - 1 || !token.endsPhrase) &&
          // "notes of the": a set phrase ends on a word of its own, not on "the".
          !ENGLISH_STOP_WORDS.has(tokens[last].lower) &&
          said(start, last + 1)
        ) {
          end = last + 1;
          break;
        }
      }
    } else if ((next.tags.has("Gerund") || next.tags.has("Participle") || next.tags.has("PastTense")) && said(start, end + 1)) end += 1;
  }
  return [start, Math.min(end, tokens.length)];
}

/** A name's key is its fullest form in the text: "Wegener" and "Alfred Wegener" are one answer, asked once. */
export function nameKey(text: StudyText, term: KeyTerm): string {
  if (term.entity === null || term.entity === "date") return term.key;
  const fullest = text.terms.filter((other) => other.entity !== null && other.entity !== "date" && containsTerm(other, term));
  return fullest.reduce((longest, other) => (other.words.length > longest.words.length ? other : longest), term).key;
}

/** What a cloze asks for: the words as written and their key (lower case, plurals folded) to keep answers apart. */
export interface Answer {
  text: string;
  key: string;
  /** The answer is the key term as it stands, not a longer phrase around it. */
  isTerm: boolean;
}

/**
 * The answer a cloze on `term` asks for in the unit: the whole noun phrase its first mention is part of (see
 * wholePhrase). Null for a year in brackets after a name ("Adams v Lindsell (1818)"), a citation rather than
 * a fact of its own.
 */
export function answerFor(text: StudyText, unitId: number, term: KeyTerm): Answer | null {
  const tokens = text.tokensByUnit[unitId];
  const mention = mentionIn(tokens, term);
  if (mention === "verb") return null;
  if (!mention) return { text: term.display, key: term.key, isTerm: true };
  if (term.entity === "date" && tokens[mention[0]].pre.includes("(")) return null;
  // A date is whole as it stands ("In 1923 Johannes Brønsted …": the name after it is another answer).
  let [from, to] = term.entity === "date" ? mention : setPhrase(text, tokens, ofPhrase(tokens, wholePhrase(tokens, mention)));
  // "four stages prophase metaphase anaphase and telophase": a list said without commas, each word a term.
  if (to - from >= 3 && tokens.slice(from, to).every((token) => text.terms.some((other) => other.words.length === 1 && other.key === token.normal)))
    [from, to] = mention;
  // "Germany's unrestricted submarine warfare": the blank takes the name, the "'s" stays in the sentence.
  const written = textOfTokens(tokens, from, to).replace(/['’]s$/u, "");
  if (from === mention[0] && to === mention[1]) return { text: written, key: nameKey(text, term), isTerm: true };
  return {
    text: written,
    key: tokens
      .slice(from, to)
      .map((token) => token.normal)
      .join(" ")
      .replace(/['’]s$/u, ""),
    isTerm: false,
  };
}

/**
 * Whether the unit says the term as a noun phrase of its own, with no describing word before it ("heavier
 * and heavier elements") and no noun after it ("1923 Johannes Brønsted"): swapping it for another term then
 * changes what the sentence says, not just how it reads.
 */
export function standsAlone(text: StudyText, unitId: number, term: KeyTerm): boolean {
  const tokens = text.tokensByUnit[unitId];
  const mention = mentionIn(tokens, term);
  if (!Array.isArray(mention)) return false;
  const [start, end] = mention;
  const before = tokens[start - 1];
  const after = tokens[end];
  if (before && !before.endsPhrase && ["Adjective", "Noun", "Value"].some((tag) => before.tags.has(tag)) && !before.tags.has("Pronoun")) return false;
  // Next to a word the repairs re-read ("maize concentrate carbon dioxide"), where the phrase starts is a guess: no swap.
  if ((before && !before.endsPhrase && before.retagged) || (after && !tokens[end - 1].endsPhrase && after.retagged)) return false;
  return !(after && !tokens[end - 1].endsPhrase && after.tags.has("Noun") && !after.tags.has("Pronoun"));
}

const escapeForPattern = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Compiled answer patterns (compiling one with Unicode classes costs more than matching it), a bounded cache. */
const answerPatterns = new Map<string, RegExp>();

/** The words of an answer as written, any spacing, not inside a hyphenated word ("value" is no blank in "p-value"). */
function answerPattern(text: string): RegExp {
  let pattern = answerPatterns.get(text);
  if (!pattern) {
    const words = text.split(/\s+/).map(escapeForPattern).join("\\s+");
    pattern = new RegExp(`(?<![\\p{L}\\p{N}-])${words}(?![\\p{L}\\p{N}]|-\\p{L})`, "giu");
    if (answerPatterns.size >= 5_000) answerPatterns.clear();
    answerPatterns.set(text, pattern);
  }
  return pattern;
}

/** The statement with every mention of the answer phrase blanked, and the phrase as the statement writes it. */
export function blankPhrase(statement: string, answer: Answer): { blanked: string; answer: string } | null {
  const pattern = answerPattern(answer.text);
  pattern.lastIndex = 0;
  const match = pattern.exec(statement);
  if (!match) return null;
  return { blanked: statement.replace(pattern, BLANK), answer: match[0] };
}

/** The statement with every mention of the term blanked, and the term as the statement writes it. */
export function blankOut(statement: string, term: KeyTerm): { blanked: string; answer: string } | null {
  const match = term.pattern.exec(statement);
  if (!match) return null;
  return { blanked: statement.replace(globalPattern(term), BLANK), answer: match[0] };
}

/** Whether a written form is a plural ("enzymes" for "enzyme"). */
export function isPluralForm(term: KeyTerm, written: string): boolean {
  const lastWord =
    written
      .toLowerCase()
      .split(/[\s\-–]+/)
      .pop() ?? "";
  return lastWord !== term.words[term.words.length - 1] && /s$/.test(lastWord) && !/['’]s$/.test(lastWord);
}

/**
 * The text only ever says the term in the plural ("carbon atoms"), so that is how it is shown. Only phrases
 * are read so: a single word in -s said only so may be no plural at all ("krebs" in a lower-case transcript,
 * "cristae").
 */
const shownInPlural = (term: KeyTerm) =>
  !term.isAcronym && term.words.length > 1 && !SINGULAR_IN_S.test(term.display) && isPluralForm(term, term.display);

/** Whether the term is written in the plural here: a plural form next to a singular one, or a phrase shown in the plural. */
export function writtenInPlural(term: KeyTerm, written: string): boolean {
  if (SINGULAR_IN_S.test(written) || !isPluralForm(term, written)) return false;
  return written.toLowerCase() !== term.display.toLowerCase() || shownInPlural(term);
}

/** A regular singular: the shown form with its last word as the term's key has it ("carbon atoms" → "carbon atom"). */
const singularOf = (term: KeyTerm) => term.display.replace(/[\p{L}\p{N}]+$/u, term.words[term.words.length - 1]);

/**
 * Whether the term can stand where the answer stands in that number: a plural blank needs a plural the text
 * uses ("enzymes", not a made-up "oxygens"); a singular is always at hand (see optionForm).
 */
export function hasNumber(term: KeyTerm, plural: boolean): boolean {
  if (!plural || shownInPlural(term)) return true;
  return term.pluralDisplay !== null && term.pluralDisplay.toLowerCase() !== term.display.toLowerCase() && !SINGULAR_IN_S.test(term.pluralDisplay);
}

/**
 * The term as an answer option or a swapped-in term, in the number of the blank it fills: the plural the text
 * uses, or the singular (a regular one for a term said only in the plural), so no option stands out by its
 * number and a swapped statement stays grammatical.
 */
export function optionForm(term: KeyTerm, plural: boolean): string {
  if (plural) return shownInPlural(term) ? term.display : (term.pluralDisplay ?? term.display);
  return shownInPlural(term) ? singularOf(term) : term.display;
}

/** Replaces every mention of `term` in `statement` by `replacement`, keeping a capital at the start and "a"/"an" agreement. */
export function swapTerm(statement: string, term: KeyTerm, replacement: string): string {
  const withArticle = new RegExp(`(\\b[Aa]n?\\s+)?(?:${term.pattern.source})`, "giu");
  return statement.replace(withArticle, (_match, article: string | undefined, offset: number) => {
    if (article) {
      const agreeing = /^[aeiou]/i.test(replacement) ? "an" : "a";
      return `${article.startsWith("A") ? capitalize(agreeing) : agreeing} ${replacement}`;
    }
    return offset === 0 ? capitalize(replacement) : replacement;
  });
}

/** Units mentioning a term within one unit of each other, over the rarer term's mentions: 1 when they always appear together. */
function proximity(a: KeyTerm, b: KeyTerm): number {
  const near = new Set(a.unitIds.flatMap((id) => [id - 1, id, id + 1]));
  const shared = b.unitIds.filter((id) => near.has(id)).length;
  return Math.min(1, shared / Math.max(1, Math.min(a.unitIds.length, b.unitIds.length)));
}

const lastLetters = (term: KeyTerm) => term.words[term.words.length - 1].slice(-3);

/** Similarities already worked out, per term object (so they go when the analysis goes). */
const similarities = new WeakMap<KeyTerm, Map<KeyTerm, number>>();

/**
 * How alike two terms are as answers, 0-1: same number of words and similar length, both acronyms or both
 * words, the same ending ("-sis", "-ase"), a shared word ("lactic acid fermentation" / "alcoholic
 * fermentation"), and mentioned near each other (same topic).
 */
export function similarity(a: KeyTerm, b: KeyTerm): number {
  let known = similarities.get(a);
  if (!known) similarities.set(a, (known = new Map<KeyTerm, number>()));
  let value = known.get(b);
  if (value === undefined) known.set(b, (value = computeSimilarity(a, b)));
  return value;
}

function computeSimilarity(a: KeyTerm, b: KeyTerm): number {
  const words = 1 - Math.abs(a.words.length - b.words.length) / Math.max(a.words.length, b.words.length);
  const length = 1 - Math.abs(a.display.length - b.display.length) / Math.max(a.display.length, b.display.length);
  const kind = a.isAcronym === b.isAcronym ? 1 : 0;
  const ending = lastLetters(a) === lastLetters(b) ? 1 : 0;
  const sharedWord = a.words.some((word) => b.words.includes(word)) ? 1 : 0;
  return 0.25 * words + 0.15 * length + 0.2 * kind + 0.1 * ending + 0.1 * sharedWord + 0.2 * proximity(a, b);
}

/** How many of a statement's content words nearest its term are compared with other sentences (see alsoTrue). */
const NEAREST_CONTENT_WORDS = 6;
/** A sentence holding this share of them with the replacement says what the swapped statement says. */
const ALSO_TRUE_SHARE = 2 / 3;

/**
 * Whether putting `replacement` in place of `answer` in `context` (a statement or a definition) may still be
 * true by the notes: some sentence mentions the replacement together with most of the content words said
 * around the answer ("FADH2 also carries electrons to the ETC" makes "FADH2 carries electrons to the ETC" no
 * false statement, nor FADH2 a wrong option). The words: up to six content words nearest the answer's
 * mention, other than the two terms' own; at least two of them (all, if fewer) and two thirds must be there.
 */
export function alsoTrue(text: StudyText, answer: KeyTerm, replacement: KeyTerm, context: string): boolean {
  const own = new Set([...answer.words, ...replacement.words]);
  const words = contentWords(context);
  const mention = words.indexOf(answer.words[answer.words.length - 1]);
  const nearest = [
    ...new Set(
      words
        .map((word, index) => ({ word, distance: mention < 0 ? index : Math.abs(index - mention) }))
        .filter(({ word }) => !own.has(word))
        .sort((a, b) => a.distance - b.distance)
        .map(({ word }) => word),
    ),
  ].slice(0, NEAREST_CONTENT_WORDS);
  if (!nearest.length) return false;
  const needed = Math.max(Math.min(2, nearest.length), Math.ceil(ALSO_TRUE_SHARE * nearest.length));
  return replacement.unitIds.some((unitId) => {
    const said = new Set(text.contentWordsByUnit[unitId]);
    return nearest.filter((word) => said.has(word)).length >= needed;
  });
}

/** A year, or a date with a day or month ("28 June 1919"): one stands in only for another of its shape. */
const dateShape = (term: KeyTerm) => (/^\d+$/.test(term.key) ? "year" : "date");

/** Terms that cannot stand in for each other: the same, or one inside the other. */
export const overlaps = (a: KeyTerm, b: KeyTerm) => a === b || containsTerm(a, b) || containsTerm(b, a);

/**
 * `count` other key terms to offer next to `answer`, of its kind (a person for a person, a date for a date, a
 * concept for a concept: see EntityKind), none overlapping it, none mentioned in `visibleText`
 * (the question would give them away), all with distinct forms, all with a form in the answer's number
 * (see hasNumber), none that the notes say in the answer's place (see alsoTrue; `context` is what the
 * question states about the answer). EASY offers the least similar of the better-known terms, MEDIUM a
 * spread, HARD the most similar. Null when the text has too few such terms.
 */
export function chooseDistractors(
  text: StudyText,
  answer: KeyTerm,
  profile: DifficultyProfile,
  options: { count: number; visibleText: string; plural: boolean; context?: string },
): KeyTerm[] | null {
  const formOf = (term: KeyTerm) => optionForm(term, options.plural).toLowerCase();
  const answerForm = formOf(answer);
  const byKey = (a: { term: KeyTerm }, b: { term: KeyTerm }) => compareText(a.term.key, b.term.key);
  const mostSimilarFirst = text.terms
    .filter(
      (term) =>
        term.entity === answer.entity &&
        (answer.entity !== "date" || dateShape(term) === dateShape(answer)) &&
        !overlaps(term, answer) &&
        hasNumber(term, options.plural) &&
        !term.pattern.test(options.visibleText) &&
        formOf(term) !== answerForm,
    )
    .map((term) => ({ term, similarity: similarity(answer, term) }))
    .sort((a, b) => b.similarity - a.similarity || byKey(a, b));

  let pool = mostSimilarFirst;
  if (profile.distractors === "least similar") {
    const familiarCount = Math.max(options.count * 2, Math.ceil(pool.length / 2));
    const familiar = [...pool].sort((a, b) => b.term.weight - a.term.weight || byKey(a, b)).slice(0, familiarCount);
    const leastSimilarFirst = familiar.sort((a, b) => a.similarity - b.similarity || byKey(a, b));
    pool = leastSimilarFirst.concat(pool.filter((entry) => !familiar.includes(entry)));
  } else if (profile.distractors === "spread") {
    pool = pool.filter((_, index) => index % 2 === 0).concat(pool.filter((_, index) => index % 2 === 1));
  }

  const chosen: KeyTerm[] = [];
  const forms = new Set([answerForm]);
  for (const { term } of pool) {
    const form = formOf(term);
    if (forms.has(form) || chosen.some((other) => overlaps(other, term))) continue;
    if (options.context !== undefined && alsoTrue(text, answer, term, options.context)) continue;
    chosen.push(term);
    forms.add(form);
    if (chosen.length === options.count) return chosen;
  }
  return null;
}
