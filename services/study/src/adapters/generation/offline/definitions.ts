// Definition sentences, found over compromise's tags: "X is/are a …", "X, or Y, is …", "X, also known as Y, is …",
// "X refers to / means / measures / describes / is defined as …", "… is called X" (and "This step is called
// X" after the sentence that says what the step is), in punctuated and unpunctuated speech alike.
import { ENGLISH_STOP_WORDS } from "@study/ai";
import { capitalize } from "./prose";
import { textOfTokens, type Token } from "./tagging";
import type { TextUnit } from "./text-units";
import { CLAUSE_LINKS, CLAUSE_OPENERS, DEMONSTRATIVES, endsCompound, isDiscourseNoun, isGenericNoun, isNominal, isTermHead } from "./vocabulary";

/** How a definition names its term: "X is/are …", "X refers to / means / measures …", "X is defined as …". */
export type DefiningVerb = "is" | "are" | "refers to" | "means" | "measures" | "describes" | "is defined as";

/** A term the text defines, with what it says the term is. */
export interface Definition {
  unitId: number;
  /** As written ("ATP synthase"), without its article. */
  term: string;
  /** The article the text puts before it ("an enzyme", "the matrix"), lower case; null for none. */
  article: string | null;
  /** Normalised like key terms (lower case, plurals folded). */
  termKey: string;
  /** Another name given with it ("ATP, or adenosine triphosphate, is …"). */
  alias: string | null;
  verb: DefiningVerb;
  /** What the term is, e.g. "the first stage of cellular respiration". */
  description: string;
  /** The definition as one sentence. */
  statement: string;
  /** The sentence(s) that state it, as said. */
  source: string;
}

const DETERMINERS = new Set(["the", "a", "an"]);
const RELATIVES = new Set(["that", "which", "where", "whose", "in"]);
const HEDGES = new Set(["basically", "essentially", "simply", "just", "really", "literally", "actually", "also"]);
/** Words that make "X is Y" hold only sometimes ("Advertisements are usually invitations to treat"): no definition. */
const QUALIFIERS = new Set(["usually", "generally", "often", "sometimes", "typically", "normally", "mostly", "rarely", "occasionally"]);
/** "X is the reason …", "X is the same …": a copula that states no definition. */
const NON_DEFINING_HEADS = new Set([
  "thing",
  "reason",
  "point",
  "trick",
  "case",
  "way",
  "answer",
  "question",
  "idea",
  "same",
  "problem",
  "key",
  "lot",
  "whole",
  "one",
]);
const VERB_PHRASES: { words: string[]; verb: DefiningVerb }[] = [
  { words: ["refers", "to"], verb: "refers to" },
  { words: ["means"], verb: "means" },
  { words: ["measures"], verb: "measures" },
  { words: ["describes"], verb: "describes" },
];
const MIN_DESCRIPTION_WORDS = 3;
const MAX_DESCRIPTION_WORDS = 35;
const MAX_TERM_WORDS = 4;

const wordsAt = (tokens: readonly Token[], at: number, words: string[]) => words.every((word, offset) => tokens[at + offset]?.lower === word);

/** Whether a clause starts right after token `index`: the unit's start, punctuation, or an opener ("so", "and") at such a place. */
function clauseStartsAfter(tokens: readonly Token[], index: number): boolean {
  if (index < 0 || tokens[index].endsPhrase) return true;
  return CLAUSE_OPENERS.has(tokens[index].lower) && clauseStartsAfter(tokens, index - 1);
}

/** The noun phrase that ends just before `end`, as [start, end), or null. Hyphenated words count ("two-carbon"). */
function nounPhraseBefore(tokens: readonly Token[], end: number): [number, number] | null {
  if (end <= 0 || !isTermHead(tokens[end - 1])) return null;
  let start = end - 1;
  while (
    start > 0 &&
    end - start < MAX_TERM_WORDS &&
    (isNominal(tokens[start - 1]) || tokens[start - 1].hyphenatedToNext) &&
    !tokens[start - 1].endsPhrase &&
    !endsCompound(tokens[start - 1])
  ) {
    start -= 1;
  }
  return [start, end];
}

/** The noun phrase starting at `start` (after an optional determiner), as [start, end), or null. */
function nounPhraseAt(tokens: readonly Token[], start: number): [number, number] | null {
  let from = start;
  if (DETERMINERS.has(tokens[from]?.lower)) from += 1;
  let end = from;
  while (end < tokens.length && end - from < MAX_TERM_WORDS && (isNominal(tokens[end]) || tokens[end].hyphenatedToNext)) {
    end += 1;
    if (tokens[end - 1].endsPhrase || endsCompound(tokens[end - 1])) break;
  }
  while (end > from && !isTermHead(tokens[end - 1])) end -= 1;
  return end > from ? [from, end] : null;
}

/**
 * The subject term of a defining verb at `verbAt`: a noun phrase right before it that starts a clause. A spoken
 * restart counts as a clause start ("… with glycolysis glycolysis is …"), which is how unpunctuated
 * transcripts show it.
 */
function subjectBefore(tokens: readonly Token[], verbAt: number): [number, number] | null {
  const phrase = nounPhraseBefore(tokens, verbAt);
  if (!phrase) return null;
  const [start, end] = phrase;
  for (let length = 1; length <= end - start; length += 1) {
    const repeated = Array.from({ length }, (_, offset) => tokens[end - length - length + offset]?.lower);
    if (repeated.every((word, offset) => word === tokens[end - length + offset].lower)) return [end - length, end];
  }
  const before = DETERMINERS.has(tokens[start - 1]?.lower) ? start - 2 : start - 1;
  return clauseStartsAfter(tokens, before) ? phrase : null;
}

/** Where the clause that starts at `from` ends: at a sentence mark, at ", and/which …", or at "and it/they …". */
function clauseEnd(tokens: readonly Token[], from: number): number {
  for (let index = from; index < tokens.length; index += 1) {
    const token = tokens[index];
    const next = tokens[index + 1];
    if (/[.;!?:]/.test(token.post)) return index + 1;
    if (next && token.endsPhrase && CLAUSE_LINKS.has(next.lower)) return index + 1;
    if (next && index > from && CLAUSE_LINKS.has(token.lower) && next.tags.has("Pronoun")) return index;
  }
  return tokens.length;
}

/**
 * Whether a description names a kind of thing or an activity ("a soft layer of …", "proteins that …", "making
 * ATP directly …") rather than saying how the term is ("common along all plate boundaries", "responsible for
 * …"): a noun or gerund comes before any preposition or verb.
 */
function startsWithNounPhrase(words: readonly Token[]): boolean {
  for (const word of words) {
    if (word.tags.has("Noun") || word.tags.has("Gerund")) return true;
    // A participle before a noun describes it ("a partly molten layer"); other verbs start a predicate.
    if (word.tags.has("Preposition") || word.tags.has("Conjunction") || (word.tags.has("Verb") && !word.tags.has("Participle"))) return false;
  }
  return false;
}

function description(tokens: readonly Token[], from: number): string | null {
  let end = clauseEnd(tokens, from);
  // An unpunctuated unit can stop mid-phrase ("… from food molecules to the").
  const unfinished = end === tokens.length && !/[.!?]/.test(tokens[end - 1]?.post ?? "");
  while (unfinished && end > from && ENGLISH_STOP_WORDS.has(tokens[end - 1].lower)) end -= 1;
  const count = end - from;
  if (count < MIN_DESCRIPTION_WORDS || count > MAX_DESCRIPTION_WORDS) return null;
  const firstNoun = tokens.slice(from, end).find((token) => token.tags.has("Noun"));
  if (!firstNoun || NON_DEFINING_HEADS.has(firstNoun.normal) || firstNoun.tags.has("Pronoun")) return null;
  if (!startsWithNounPhrase(tokens.slice(from, end))) return null;
  return textOfTokens(tokens, from, end);
}

interface TermMatch {
  term: [number, number];
  alias: [number, number] | null;
}

/** "X is", or "X, or Y, is" / "X, also known as Y, is" / "X, also called Y, is" with an alias. */
function definedTermBefore(tokens: readonly Token[], verbAt: number): TermMatch | null {
  if (tokens[verbAt - 1]?.endsPhrase) {
    const alias = nounPhraseBefore(tokens, verbAt);
    if (!alias) return null;
    let linkAt = alias[0] - 1;
    if (DETERMINERS.has(tokens[linkAt]?.lower)) linkAt -= 1;
    let linkStart = linkAt;
    if (wordsAt(tokens, linkAt - 1, ["known", "as"])) linkStart = linkAt - 1;
    else if (tokens[linkAt]?.lower !== "or" && tokens[linkAt]?.lower !== "called") return null;
    if (tokens[linkStart - 1]?.lower === "also") linkStart -= 1;
    if (!tokens[linkStart - 1]?.endsPhrase) return null;
    const term = subjectBefore(tokens, linkStart);
    return term ? { term, alias } : null;
  }
  const term = subjectBefore(tokens, verbAt);
  return term ? { term, alias: null } : null;
}

const POINTING_WORDS = new Set(["this", "that", "these", "those"]);

/**
 * Whether the copula's subject is a demonstrative or pronoun: "unit start" when a pointing word opens the unit
 * ("This step is called …"), "elsewhere" for any other ("…, and it is called …"), "none" for a real subject.
 */
function demonstrativeSubject(tokens: readonly Token[], copulaAt: number): "none" | "unit start" | "elsewhere" {
  let start = copulaAt - 1;
  while (start >= 0 && copulaAt - start <= 2 && !DEMONSTRATIVES.has(tokens[start].lower)) start -= 1;
  if (start < 0 || !DEMONSTRATIVES.has(tokens[start].lower) || !clauseStartsAfter(tokens, start - 1)) return "none";
  const opensUnit = tokens.slice(0, start).every((token) => CLAUSE_OPENERS.has(token.lower));
  return opensUnit && POINTING_WORDS.has(tokens[start].lower) ? "unit start" : "elsewhere";
}

/** "The folds of the inner membrane are called cristae": the subject (its clause) describes the term named after "called". */
function calledDefinition(tokens: readonly Token[], copulaAt: number, calledAt: number, previous: TextUnit | undefined) {
  const named = nounPhraseAt(tokens, calledAt + (tokens[calledAt].lower === "known" ? 2 : 1));
  if (!named) return null;
  const verb: DefiningVerb = tokens[copulaAt].lower === "are" ? "are" : "is";
  const demonstrative = demonstrativeSubject(tokens, copulaAt);
  // "It is called a cycle because …" names no defined thing.
  if (demonstrative === "elsewhere") return null;
  if (demonstrative === "unit start") {
    // "This step is called pyruvate oxidation": the sentence before says what the step is.
    if (!previous || previous.statement.split(" ").length > MAX_DESCRIPTION_WORDS) return null;
    const term = textOfTokens(tokens, named[0], named[1]);
    return { named, verb, describedBy: previous.statement, statement: `${previous.statement} This is called ${term}.`, startsIn: previous };
  }
  // "Is called the focus." opening a unit (a pause cut off its subject) has no subject to read.
  if (copulaAt === 0) return null;
  let start = copulaAt - 1;
  while (start > 0 && !tokens[start - 1].endsPhrase) start -= 1;
  while (start < copulaAt && CLAUSE_OPENERS.has(tokens[start].lower)) start += 1;
  const subject = tokens.slice(start, copulaAt);
  if (subject.length < 2 || subject.length > 12 || DEMONSTRATIVES.has(subject[0].lower) || !subject.some((token) => isTermHead(token))) return null;
  const describedBy = textOfTokens(tokens, start, copulaAt).replace(/^(?:The|A|An) /, (article) => article.toLowerCase());
  return { named, verb, describedBy, statement: null, startsIn: null };
}

function termKey(tokens: readonly Token[], [start, end]: [number, number]): string {
  return tokens
    .slice(start, end)
    .map((token) => token.normal)
    .join(" ");
}

function statementOf(term: string, verb: DefiningVerb, describedBy: string): string {
  return `${capitalize(term)} ${verb} ${describedBy.replace(/[.!?]+$/, "")}.`;
}

interface Found {
  term: [number, number];
  alias?: [number, number] | null;
  verb: DefiningVerb;
  describedBy: string | null;
  /** When the definition is not "<term> <verb> <describedBy>." */
  statement?: string | null;
  /** The unit before, when that one says what the term is. */
  startsIn?: TextUnit | null;
  /** Named by "… is called X" / "… is known as X" rather than described by "X is …". */
  named?: boolean;
}

function definitionsInUnit(unit: TextUnit, tokens: readonly Token[], previous: TextUnit | undefined): Definition[] {
  const found: Definition[] = [];
  const add = ({ term, alias = null, verb, describedBy, statement = null, startsIn = null, named = false }: Found) => {
    if (!describedBy || term[1] - term[0] > MAX_TERM_WORDS || isGenericNoun(tokens[term[1] - 1].normal)) return;
    // "The difference is that …", "The focus today is …": talk about the lecture, unless named ("… is called the focus").
    if (!named && term[1] - term[0] === 1 && isDiscourseNoun(tokens[term[0]].normal)) return;
    const termText = textOfTokens(tokens, term[0], term[1]);
    const before = tokens[term[0] - 1]?.lower;
    const article = before !== undefined && DETERMINERS.has(before) ? before : null;
    found.push({
      unitId: (startsIn ?? unit).id,
      term: termText,
      article,
      termKey: termKey(tokens, term),
      alias: alias ? textOfTokens(tokens, alias[0], alias[1]) : null,
      verb,
      description: describedBy.replace(/[.!?]+$/, ""),
      statement: statement ?? statementOf(article ? `${article} ${termText}` : termText, verb, describedBy),
      source: startsIn ? `${startsIn.statement} ${unit.statement}` : unit.statement,
    });
  };

  tokens.forEach((token, at) => {
    if (token.lower === "is" || token.lower === "are") {
      let next = at + 1;
      while (HEDGES.has(tokens[next]?.lower) || QUALIFIERS.has(tokens[next]?.lower)) next += 1;
      if (tokens.slice(at + 1, next).some((word) => QUALIFIERS.has(word.lower))) return;
      if (tokens[next]?.lower === "called" || wordsAt(tokens, next, ["known", "as"])) {
        const called = calledDefinition(tokens, at, next, previous);
        if (called) add({ ...called, term: called.named, named: true });
        return;
      }
      const match = definedTermBefore(tokens, at);
      if (!match) return;
      if (wordsAt(tokens, next, ["defined", "as"])) {
        add({ ...match, verb: "is defined as", describedBy: description(tokens, next + 2) });
        return;
      }
      // "X is a/the …", "Xs are Ys that …", "X is respiration that …"
      const opener = tokens[next];
      const relativeFollows = tokens.slice(next + 1, next + 4).some((word) => RELATIVES.has(word.lower));
      const startsDescription =
        opener && (DETERMINERS.has(opener.lower) || (isNominal(opener) && !opener.tags.has("Verb") && (token.lower === "are" || relativeFollows)));
      if (startsDescription) add({ ...match, verb: token.lower === "are" ? "are" : "is", describedBy: description(tokens, next) });
      return;
    }
    for (const phrase of VERB_PHRASES) {
      if (!wordsAt(tokens, at, phrase.words)) continue;
      const match = definedTermBefore(tokens, at);
      if (match) add({ ...match, verb: phrase.verb, describedBy: description(tokens, at + phrase.words.length) });
    }
  });
  return found;
}

/** Every term the text defines, first definition of each term only, in text order. */
export function findDefinitions(units: readonly TextUnit[], tokensByUnit: readonly (readonly Token[])[]): Definition[] {
  const byTerm = new Map<string, Definition>();
  units.forEach((unit, index) => {
    const previous = index > 0 && units[index - 1].sourceId === unit.sourceId ? units[index - 1] : undefined;
    for (const definition of definitionsInUnit(unit, tokensByUnit[index], previous)) {
      if (!byTerm.has(definition.termKey)) byTerm.set(definition.termKey, definition);
    }
  });
  return [...byTerm.values()];
}
