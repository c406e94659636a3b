import { normalizeTerm } from "@study/ai";
import nlp from "compromise/two";
import type { TextUnit } from "./text-units";

/** A word of a unit with compromise's part-of-speech tags. */
export interface Token {
  text: string;
  /** Punctuation and spaces around the word, as written. */
  pre: string;
  post: string;
  lower: string;
  /** Lower case, plural folded onto the singular ("cells" → "cell"). */
  normal: string;
  tags: ReadonlySet<string>;
  /** Written with a hyphen to the next word ("mid-ocean"). */
  hyphenatedToNext: boolean;
  /** Followed by punctuation that ends a phrase (comma, period, colon...). */
  endsPhrase: boolean;
  /** In compromise's lexicon of everyday English; technical words ("glycolysis", "NADH") are not. */
  common: boolean;
  /** Re-tagged by the repairs below (compromise read it otherwise): where a phrase starts or ends near it is less sure. */
  retagged?: boolean;
}

/** Written with a capital: a name inside a sentence, or a sentence's first word. */
export const isCapitalised = (token: Token | undefined): boolean => token !== undefined && /^\p{Lu}/u.test(token.text);

/** The articles: English puts no preposition or conjunction right after one (see isGarbled). */
export const ARTICLES: ReadonlySet<string> = new Set(["a", "an", "the"]);

/** compromise's dictionary of everyday English (word → tag); words outside it are tagged by guesswork. */
const lexicon: Readonly<Record<string, unknown>> = (nlp.model() as { one?: { lexicon?: Record<string, unknown> } }).one?.lexicon ?? {};

/** Words English uses both as nouns and as verbs, as compromise lists them ("fall" → "Noun|Verb", "falls" → "Plural|Verb"). */
const switches: Readonly<Record<string, string>> = (nlp.model() as { two?: { switches?: Record<string, string> } }).two?.switches ?? {};

/** Whether the word may be a verb, whatever it is tagged here: "rise" in "oil prices rise". */
export function canBeVerb(token: Token): boolean {
  const entry = lexicon[token.lower];
  return token.tags.has("Verb") || /Verb/.test(switches[token.lower] ?? "") || entry === "Infinitive" || entry === "PresentTense";
}

/** How many units are tagged between two yields to the event loop. */
const UNITS_PER_BATCH = 40;

/** Verb forms that compromise tags from grammar, not guesses: never re-read as nouns. */
const SURE_VERB_TAGS = ["Copula", "Auxiliary", "Modal", "PastTense", "Gerund", "Participle", "PhrasalVerb", "Passive"];
const NOT_NOUN_MODIFIERS = new Set(["to", "that", "which", "who", "this", "these", "those"]);

/**
 * compromise guesses unknown words by suffix, so technical nouns come out as verbs ("pyruvate", "oxaloacetate"
 * look like "-ate" verbs) and a name plus noun reads as a name plus verb ("the Krebs cycle"). A base-form verb
 * is taken for a noun where English grammar rules out a verb: after a number, name, acronym, article,
 * adjective or preposition, after a singular noun it does not agree with, or right before another verb.
 */
function isMistaggedNoun(tokens: readonly Token[], index: number): boolean {
  const { tags } = tokens[index];
  if (!tags.has("Verb") || SURE_VERB_TAGS.some((tag) => tags.has(tag))) return false;
  const previous = tokens[index - 1];
  const next = tokens[index + 1];
  if (next && !tokens[index].endsPhrase && followsAVerb(next, tokens[index + 2])) return false;
  // "C4 plants such as maize …": examples follow a noun, not a verb.
  if (next?.lower === "such" && tokens[index + 2]?.lower === "as" && !tokens[index].endsPhrase) return true;
  if (isPluralBeforeItsVerb(tokens, index)) return true;
  if (index === 0 && isNounOpeningSentence(tokens)) return true;
  if (previous && !previous.endsPhrase && !NOT_NOUN_MODIFIERS.has(previous.lower)) {
    const before = previous.tags;
    // A verb in -s after a singular noun or name agrees with it: "acetyl CoA combines with …", "the chain stops".
    if (tags.has("PresentTense") && /[^s]s$/.test(tokens[index].lower) && before.has("Noun") && !before.has("Plural") && !before.has("Pronoun"))
      return false;
    if (["ProperNoun", "Acronym", "Value", "Determiner", "Adjective", "Preposition"].some((tag) => before.has(tag))) return true;
    if (
      before.has("Noun") &&
      !before.has("Plural") &&
      !before.has("Pronoun") &&
      tags.has("Infinitive") &&
      !tokens[index].lower.endsWith("s") &&
      !agreesWithExampledPlural(tokens, index - 1)
    )
      return true;
  }
  return next !== undefined && !tokens[index].endsPhrase && next.tags.has("Verb") && next.tags.has("PresentTense") && !next.tags.has("Infinitive");
}

/**
 * "Plants such as maize concentrate carbon dioxide": the noun before the verb is an example of a plural that
 * is the verb's real subject, so a base-form verb after it agrees.
 */
function agreesWithExampledPlural(tokens: readonly Token[], nounIndex: number): boolean {
  let start = nounIndex;
  while (start > 0 && !tokens[start - 1].endsPhrase && (tokens[start - 1].tags.has("Noun") || tokens[start - 1].tags.has("Adjective"))) start -= 1;
  const like =
    tokens[start - 1]?.lower === "like" ? start - 1 : tokens[start - 1]?.lower === "as" && tokens[start - 2]?.lower === "such" ? start - 2 : -1;
  // The word before "such as" is a noun whatever compromise read ("C4 plants such as maize").
  return like > 0 && (tokens[like - 1].tags.has("Plural") || /[^s'’]s$/.test(tokens[like - 1].lower));
}

/** Whether the word, whatever its tag, is followed the way a verb is ("Africa fit together", "the Sun end very differently"). */
export const usedAsVerb = (tokens: readonly Token[], index: number) =>
  !tokens[index].endsPhrase && tokens[index + 1] !== undefined && followsAVerb(tokens[index + 1], tokens[index + 2]);

/** Possessives that open a verb's object: "the checkpoint copy their dna". */
const OBJECT_POSSESSIVES = new Set(["their", "its", "his", "her", "our", "your", "my"]);

/**
 * What comes after a verb and not after a noun: an adverb not itself before a verb ("ionise completely", "end
 * very differently", "fit together"; but "Merge sort always takes"), "to" ("react to give") or a possessive
 * opening the object ("copy their dna").
 */
export const followsAVerb = (next: Token, afterNext: Token | undefined) =>
  ((next.tags.has("Adverb") || next.lower === "together") && !(afterNext?.tags.has("Verb") && !next.endsPhrase)) ||
  next.lower === "to" ||
  OBJECT_POSSESSIVES.has(next.lower);

const NOUN_TAGS = new Set(["Singular", "Plural", "Uncountable", "Noun"]);

/**
 * compromise reads a sentence's first word as an imperative where it is a noun modifier: "Guard cells open
 * …" (an imperative's object is not followed by a verb), "Price elasticity of demand measures …" (a word the
 * lexicon has as a noun, before another noun).
 */
function isNounOpeningSentence(tokens: readonly Token[]): boolean {
  const [first, next, third] = tokens;
  if (!next || first.endsPhrase || !next.tags.has("Noun") || next.tags.has("Pronoun")) return false;
  const entry = lexicon[first.lower];
  if (typeof entry === "string" && NOUN_TAGS.has(entry)) return true;
  return first.tags.has("Infinitive") && next.tags.has("Plural") && !next.endsPhrase && third?.tags.has("Verb");
}

/** Verbs followed by a bare infinitive: "slab pull helps drive …". */
const BARE_INFINITIVE_VERBS = new Set(["helps", "makes", "lets", "sees", "hears", "watches", "bids"]);

/** A word in -s right before a base-form verb is the plural subject of that verb: "Comparison sorts decide …". */
function isPluralBeforeItsVerb(tokens: readonly Token[], index: number): boolean {
  const token = tokens[index];
  const next = tokens[index + 1];
  const previous = tokens[index - 1];
  return (
    token.tags.has("PresentTense") &&
    /[^s]s$/.test(token.lower) &&
    !BARE_INFINITIVE_VERBS.has(token.lower) &&
    previous !== undefined &&
    !previous.endsPhrase &&
    (previous.tags.has("Noun") || previous.tags.has("Adjective")) &&
    !previous.tags.has("Pronoun") &&
    next !== undefined &&
    !token.endsPhrase &&
    next.tags.has("Infinitive")
  );
}

/**
 * compromise reads a verb in -s after a noun as a plural: after a person's name and before an article or
 * possessive ("John Dashwood inherits the estate"), or as in isVerbAfterItsSubject.
 */
function isMistaggedVerb(tokens: readonly Token[], index: number): boolean {
  const { tags, lower, endsPhrase } = tokens[index];
  const previous = tokens[index - 1];
  const next = tokens[index + 1];
  if (!previous || previous.endsPhrase) return false;
  // "makes the heart work harder": a word that may be a verb, after a causative's object, is that object's verb.
  if (!tags.has("Plural") && /Verb/.test(switches[lower] ?? "") && !endsPhrase && followsCausativeObject(tokens, index)) return true;
  // "the alliance system drew in Russia": a lower-case word is no first name; read as a verb where it may be one.
  if (tags.has("FirstName") && !isCapitalised(tokens[index]) && /Verb/.test(switches[lower] ?? "") && previous.tags.has("Noun")) return true;
  // "Plants such as maize concentrate carbon dioxide": a base form after an example of a plural is its verb.
  if (!tags.has("Plural") && tags.has("Noun") && /Verb/.test(switches[lower] ?? "") && !endsPhrase && agreesWithExampledPlural(tokens, index - 1))
    return true;
  // A capitalised word inside the sentence is a name ("the Central Powers"), not a verb.
  if (!tags.has("Plural") || !/[^s'’]s$/.test(lower) || isCapitalised(tokens[index])) return false;
  if (previous.tags.has("Person")) return !endsPhrase && next !== undefined && (next.tags.has("Determiner") || next.tags.has("Possessive"));
  return isVerbAfterItsSubject(tokens, index);
}

/** Words that open a clause of their own: a verb after them belongs to that clause. */
const CLAUSE_OPENERS = new Set([
  "when",
  "whenever",
  "if",
  "because",
  "while",
  "where",
  "which",
  "that",
  "who",
  "although",
  "though",
  "since",
  "unless",
  "until",
  "so",
]);

const isFiniteVerb = (token: Token) =>
  token.tags.has("Verb") &&
  !token.tags.has("Gerund") &&
  !token.tags.has("Participle") &&
  !(token.tags.has("PastTense") && token.tags.has("Adjective"));

/**
 * A word English uses as noun and verb ("stop", "pumps", "contain"), read as a noun right after a noun, is the
 * clause's verb when the clause has no other: nothing before it since the clause opened and nothing after it up
 * to the next comma is a finite verb, and an object follows ("the aortic valve stop blood from flowing …", "when
 * the data contain outliers, …"). A clause with its verb elsewhere keeps the noun ("The cell cycle has …").
 */
function isOnlyVerbOfClause(tokens: readonly Token[], index: number): boolean {
  const token = tokens[index];
  const previous = tokens[index - 1];
  const next = tokens[index + 1];
  if (!token.tags.has("Noun") || token.tags.has("ProperNoun") || token.tags.has("Pronoun") || isCapitalised(token)) return false;
  if (
    !canBeVerb(token) ||
    token.endsPhrase ||
    !next ||
    !previous ||
    previous.endsPhrase ||
    !previous.tags.has("Noun") ||
    previous.tags.has("Pronoun")
  )
    return false;
  if (!["Determiner", "Noun", "Adjective", "Adverb", "Value"].some((tag) => next.tags.has(tag)) || next.tags.has("Pronoun")) return false;
  for (let before = index - 1; before >= 0 && !tokens[before].endsPhrase && !CLAUSE_OPENERS.has(tokens[before].lower); before -= 1) {
    if (isFiniteVerb(tokens[before])) return false;
  }
  for (let after = index + 1; after < tokens.length; after += 1) {
    if (isFiniteVerb(tokens[after]) || CLAUSE_OPENERS.has(tokens[after].lower)) return false;
    if (tokens[after].endsPhrase) break;
  }
  return true;
}

/** Determiners that open a singular subject: "the cell divides", "a good falls", "its price rises". */
const SUBJECT_DETERMINERS = new Set(["the", "a", "an", "its", "their", "his", "her", "this", "that", "each", "every"]);

/**
 * A word in -s that English uses as noun or verb ("falls", "rises", "divides"), right after a singular noun
 * that an article or possessive opens, and before the clause goes on with a preposition, conjunction,
 * adverb, article or the end ("the quantity demanded of a good falls as its price rises.", "a cell
 * divides."), is the verb of that noun: a plural cannot follow a singular noun there.
 */
function isVerbAfterItsSubject(tokens: readonly Token[], index: number): boolean {
  const token = tokens[index];
  const next = tokens[index + 1];
  // A plural is not followed by an article ("a cleavage furrow pinches the cell"); elsewhere only a word that may be a verb is one.
  const beforeObject = next !== undefined && !token.endsPhrase && next.tags.has("Determiner") && !next.tags.has("Noun");
  if (!beforeObject && !/Verb/.test(switches[token.lower] ?? "")) return false;
  let start = index - 1;
  const subject = tokens[start];
  if (!subject.tags.has("Noun") || subject.tags.has("Plural") || subject.tags.has("Pronoun") || subject.tags.has("Person")) return false;
  while (
    start > 0 &&
    !tokens[start - 1].endsPhrase &&
    (tokens[start - 1].tags.has("Adjective") || tokens[start - 1].tags.has("Noun")) &&
    !SUBJECT_DETERMINERS.has(tokens[start - 1].lower)
  )
    start -= 1;
  // The subject opens with an article or possessive, or opens the sentence ("Light resets the clock").
  if (start > 0 && (!SUBJECT_DETERMINERS.has(tokens[start - 1].lower) || tokens[start - 1].endsPhrase)) return false;
  if (token.endsPhrase || next === undefined) return true;
  if (next.lower === "of") return false;
  return ["Preposition", "Conjunction", "Adverb", "Determiner"].some((tag) => next.tags.has(tag));
}

const asNoun = (token: Token): Token => ({
  ...token,
  retagged: true,
  tags: new Set(["Noun", /[^s]s$/.test(token.lower) && token.tags.has("PresentTense") ? "Plural" : "Singular"]),
  normal: normalizeTerm(token.lower),
});
const asVerb = (token: Token): Token => ({ ...token, tags: new Set(["Verb", "PresentTense"]), normal: token.lower, retagged: true });
const isGuessedVerb = (token: Token) => token.tags.has("Verb") && !SURE_VERB_TAGS.some((tag) => token.tags.has(tag));

function withNounsRepaired(tokens: Token[]): Token[] {
  const mistagged = tokens.map((_, index) =>
    isNameWordTaggedVerb(tokens, index)
      ? "name"
      : isMistaggedNoun(tokens, index)
        ? "noun"
        : isMistaggedVerb(tokens, index) || isOnlyVerbOfClause(tokens, index)
          ? "verb"
          : null,
  );
  return tokens.map((token, index) => {
    switch (mistagged[index]) {
      case "name":
        return { ...token, tags: new Set(["Noun", "ProperNoun"]), normal: token.lower, retagged: true };
      case "noun":
        return asNoun(token);
      case "verb":
        return asVerb(token);
      default:
        return token;
    }
  });
}

/** "the Central Powers": a capitalised word inside the sentence, after a name, is part of the name, not a verb. */
function isNameWordTaggedVerb(tokens: readonly Token[], index: number): boolean {
  const token = tokens[index];
  const previous = tokens[index - 1];
  return (
    index > 1 &&
    token.tags.has("Verb") &&
    /^\p{Lu}\p{Ll}/u.test(token.text) &&
    previous !== undefined &&
    !previous.endsPhrase &&
    previous.tags.has("ProperNoun") &&
    isCapitalised(previous)
  );
}

/** Verbs that take an object and a bare infinitive: "makes the heart work harder", "lets the cell divide". */
const CAUSATIVES = new Set([
  "make",
  "makes",
  "made",
  "making",
  "let",
  "lets",
  "letting",
  "help",
  "helps",
  "helped",
  "helping",
  "see",
  "sees",
  "saw",
  "watch",
  "watches",
  "hear",
  "hears",
]);

/** A base form right after "makes the heart …": the object's verb. */
function followsCausativeObject(tokens: readonly Token[], index: number): boolean {
  const inObject = (token: Token) =>
    !token.endsPhrase && (token.tags.has("Noun") || token.tags.has("Adjective") || token.tags.has("Determiner")) && !CAUSATIVES.has(token.lower);
  let start = index;
  while (start > 0 && inObject(tokens[start - 1])) start -= 1;
  const verb = tokens[start - 1];
  // "are made by …" is a passive: no object follows it.
  return start < index && verb !== undefined && CAUSATIVES.has(verb.lower) && !verb.endsPhrase && !verb.tags.has("Passive");
}

/**
 * One sense per discourse: a word compromise does not know (so tagged by guess) that the text uses as a
 * noun at least as often as it seems to use it as a verb is a noun everywhere ("Pyruvate oxidation …").
 */
function withGuessesMadeConsistent(tokensByUnit: Token[][]): Token[][] {
  const uses = new Map<string, { noun: number; verb: number }>();
  for (const token of tokensByUnit.flat()) {
    if (token.common) continue;
    const count = uses.get(token.lower) ?? { noun: 0, verb: 0 };
    if (token.tags.has("Noun")) count.noun += 1;
    else if (isGuessedVerb(token)) count.verb += 1;
    uses.set(token.lower, count);
  }
  const nouns = new Set([...uses].filter(([, count]) => count.noun > 0 && count.noun >= count.verb).map(([word]) => word));
  return tokensByUnit.map((tokens) => tokens.map((token) => (isGuessedVerb(token) && nouns.has(token.lower) ? asNoun(token) : token)));
}

/** How a word is joined to the next, from what follows it. */
function joinOf(post: string): Pick<Token, "hyphenatedToNext" | "endsPhrase"> {
  const after = post.trim();
  return { hyphenatedToNext: after === "-" || after === "–", endsPhrase: after.length > 0 && after !== "-" && after !== "–" };
}

function tokenOf(term: { text: string; pre: string; post: string; tags?: Set<string> }): Token {
  const lower = term.text.toLowerCase().replace(/’/g, "'");
  const tags = term.tags ?? new Set<string>();
  return {
    text: term.text,
    pre: term.pre,
    post: term.post,
    lower,
    // Names keep their final s ("Krebs"); other words fold plurals.
    normal: tags.has("ProperNoun") || tags.has("Acronym") ? lower : normalizeTerm(lower),
    tags,
    ...joinOf(term.post),
    common: Object.hasOwn(lexicon, lower) || Object.hasOwn(lexicon, normalizeTerm(lower)),
  };
}

/**
 * compromise splits a contraction into the written word and an empty term for the implied one ("cannot" →
 * "cannot" + "" standing for "not"); the space after the contraction is that empty term's. It goes onto the
 * previous word, or "cannot grow" would come out as "cannotgrow".
 */
function keepSpacing(tokens: Token[], empty: { pre: string; post: string }): void {
  const previous = tokens[tokens.length - 1];
  if (!previous) return;
  const post = previous.post + empty.pre + empty.post;
  tokens[tokens.length - 1] = { ...previous, post, ...joinOf(post) };
}

/** How many words a bracketed expression may span ("O(n log n)"). */
const LONGEST_FORMULA_WORDS = 6;

const bracketBalance = (text: string) => (text.match(/\(/g) ?? []).length - (text.match(/\)/g) ?? []).length;

/**
 * compromise cuts a formula at its spaces and leaves the closing bracket as punctuation ("O(n" "log" "n" + ")"):
 * a word that opens a bracket is joined with the words up to the one that closes it, into one technical noun
 * ("O(n log n)", "O(n^2)"), so an answer never stops mid-formula.
 */
function withFormulasJoined(tokens: Token[]): Token[] {
  const joined: Token[] = [];
  for (let index = 0; index < tokens.length; index += 1) {
    const first = tokens[index];
    if (bracketBalance(first.text) <= 0) {
      joined.push(first);
      continue;
    }
    let raw = "";
    let closed: { text: string; post: string; last: number } | null = null;
    for (let last = index; last < Math.min(tokens.length, index + LONGEST_FORMULA_WORDS) && !closed; last += 1) {
      const token = tokens[last];
      raw += (last > index ? token.pre : "") + token.text;
      if (last > index && bracketBalance(token.pre) !== 0) break;
      let balance = bracketBalance(raw);
      if (balance === 0) closed = { text: raw, post: token.post, last };
      else {
        // The closing bracket is in the punctuation after the word.
        const close = [...token.post].findIndex((character) => character === ")" && --balance === 0);
        if (close >= 0) closed = { text: raw + token.post.slice(0, close + 1), post: token.post.slice(close + 1), last };
        else if (/[.!?;]/.test(token.post)) break;
        else raw += token.post;
      }
    }
    if (!closed) {
      joined.push(first);
      continue;
    }
    const lower = closed.text.toLowerCase();
    joined.push({
      text: closed.text,
      pre: first.pre,
      post: closed.post,
      lower,
      normal: lower,
      tags: new Set(["Noun", "Singular"]),
      ...joinOf(closed.post),
      common: false,
    });
    index = closed.last;
  }
  return joined;
}

/**
 * Tags a batch of units in one compromise call (much cheaper than one call per unit) and hands each unit its
 * words: compromise keeps every character in its terms' text and surrounding punctuation, so character
 * offsets line the terms up with the units again.
 */
export function tagBatch(texts: readonly string[]): Token[][] {
  const byUnit: Token[][] = texts.map(() => []);
  const ends: number[] = [];
  let length = 0;
  for (const text of texts) {
    length += text.length + 1;
    ends.push(length - 1);
  }
  let offset = 0;
  let unit = 0;
  for (const terms of nlp(texts.join("\n")).docs) {
    for (const term of terms) {
      const start = offset + term.pre.length;
      offset = start + term.text.length + term.post.length;
      while (unit < ends.length - 1 && start >= ends[unit]) unit += 1;
      if (term.text.length > 0) byUnit[unit].push(tokenOf(term));
      else keepSpacing(byUnit[unit], term);
    }
  }
  return byUnit.map((tokens) => withNounsRepaired(withFormulasJoined(tokens)));
}

/** Whether compromise's lexicon has the word as a preposition ("at", "of", "across"): a closed class, known without tagging. */
export function isPrepositionWord(word: string): boolean {
  const tags = lexicon[word.toLowerCase()];
  return tags === "Preposition" || (Array.isArray(tags) && tags.includes("Preposition"));
}

/**
 * Whether the words hold a finite or base-form verb compromise is sure of: one of everyday English or one
 * tagged from grammar. Technical words guessed as verbs by their ending ("nadh", "pyruvate") do not count.
 */
export function hasVerb(tokens: readonly Token[]): boolean {
  return tokens.some(
    (token) => token.tags.has("Verb") && !token.tags.has("Gerund") && (token.common || SURE_VERB_TAGS.some((tag) => token.tags.has(tag))),
  );
}

/**
 * Tags every unit with compromise, a batch at a time, yielding to the event loop between batches: tagging
 * is the costly step and the service keeps answering meanwhile.
 */
export async function tagUnits(units: readonly TextUnit[], pause: () => Promise<void>): Promise<Token[][]> {
  const tokens: Token[][] = [];
  for (let start = 0; start < units.length; start += UNITS_PER_BATCH) {
    if (start > 0) await pause();
    tokens.push(...tagBatch(units.slice(start, start + UNITS_PER_BATCH).map((unit) => unit.text)));
  }
  return withGuessesMadeConsistent(tokens);
}

/** The words from `from` to `to` (exclusive) as written, inner punctuation kept, outer dropped. */
export function textOfTokens(tokens: readonly Token[], from: number, to: number): string {
  let text = "";
  for (let index = from; index < to; index += 1) {
    const token = tokens[index];
    text += (index > from ? token.pre : "") + token.text + (index < to - 1 ? token.post : "");
  }
  return text.replace(/\s+/g, " ").trim();
}
