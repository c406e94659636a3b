import { ENGLISH_STOP_WORDS } from "@study/ai";
import { isPrepositionWord, type Token } from "./tagging";

/**
 * Nouns that carry no subject matter in a lecture ("the thing", "a lot", "this step", "the exam"): never a
 * key term on their own nor the head of one. Singular (compared with Token.normal).
 */
const GENERIC_NOUNS = new Set(
  `
thing lot way kind sort type bit part piece time today tomorrow yesterday lecture class course session unit chapter
question answer example point idea people person student everyone stuff number case fact reason sense end start
beginning minute hour second day week year month name word term exam test quiz problem half side place trick job
picture story slide board textbook book page reading homework assignment office luck practice deal matter issue
aspect detail step stage phase amount fraction version set
result outcome topic goal purpose aim objective takeaway summary conclusion consequence concept notion option choice
message lesson rest bunch couple gist tip hint
`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Nouns that, alone, say how the lecture talks ("The difference is that …", "The focus today is …", "The key
 * is …") but head real terms in phrases ("potential difference", "greenhouse effect") and can be named
 * ("… is called the focus"): no key term nor defined term on their own unless the text names them so.
 */
const DISCOURSE_NOUNS = new Set(["difference", "focus", "effect", "factor", "key", "rule", "role", "principle", "process", "approach", "method"]);

/** Adjectives and quantifiers that do not start a term ("the important step", "a huge surface area"). */
const GENERIC_MODIFIERS = new Set(
  `
important different same other new big small good great little huge real simple basic certain particular typical
useful classic interesting main whole entire overall various several many few much more most own modern older old
early late next last first second third fourth fifth very really actual actually literally tiny large common
special specific similar full empty high low long short easy hard
`
    .split(/\s+/)
    .filter(Boolean),
);

/** Words that start a clause after a comma or at a unit's start without belonging to its subject. */
export const CLAUSE_OPENERS = new Set([
  "so",
  "and",
  "but",
  "now",
  "okay",
  "ok",
  "well",
  "alright",
  "then",
  "because",
  "remember",
  "basically",
  "also",
]);

/** Words after which a comma starts a new clause ("…, and it splits…", "…, which is…"). */
export const CLAUSE_LINKS = new Set(["and", "but", "so", "while", "whereas", "because", "although", "though", "which", "otherwise", "since"]);

/** Subjects that point back at an earlier sentence instead of naming something. */
export const DEMONSTRATIVES = new Set(["this", "that", "these", "those", "it", "they"]);

const hasLetter = (text: string) => /\p{L}/u.test(text);

/** A word that can be part of a noun phrase: a noun or adjective that is no pronoun, number, date or stop word. */
export function isNominal(token: Token): boolean {
  const { tags } = token;
  if (!tags.has("Noun") && !tags.has("Adjective")) return false;
  if (tags.has("Pronoun") || tags.has("Value") || tags.has("Date") || tags.has("Possessive")) return false;
  return (
    hasLetter(token.text) &&
    token.lower.length > 1 &&
    // "right" is a stop word for "Right, so …"; before a noun it names a side ("the right atrium").
    (!ENGLISH_STOP_WORDS.has(token.lower) || (token.lower === "right" && tags.has("Adjective"))) &&
    !isPrepositionWord(token.lower) &&
    !PLACE_PREPOSITIONS.has(token.lower)
  );
}

/** Prepositions compromise's lexicon has as adjectives ("sinks beneath continental crust", "inside giant molecular clouds"). */
const PLACE_PREPOSITIONS = new Set(
  "beneath below under underneath above beside behind within inside outside beyond across along against among around toward towards upon onto via".split(
    " ",
  ),
);

/** Singular nouns in -s that plural folding takes for plurals: "plate tectonics", "economics", "gas", "analysis". */
export const SINGULAR_IN_S = /(?:ics|ss|us|is)$/i;

/**
 * A plural common noun ends a noun compound: English modifies a noun with the singular ("plate boundaries", not
 * "plates boundaries"), so "boundaries plates" in "At transform boundaries plates slide …" is two phrases.
 * Names and nouns singular in -s ("economics", "gas") are not plurals here.
 */
export function endsCompound(token: Token): boolean {
  const { tags } = token;
  return tags.has("Plural") && !tags.has("ProperNoun") && !tags.has("Acronym") && /[^'’]s$/.test(token.lower) && !SINGULAR_IN_S.test(token.lower);
}

/** A word that can end (head) a term: a nominal noun with subject matter. */
export function isTermHead(token: Token): boolean {
  return isNominal(token) && token.tags.has("Noun") && !token.hyphenatedToNext && !GENERIC_NOUNS.has(token.normal) && token.lower.length > 2;
}

/** A word that can start a term: not a generic modifier such as "important" or "huge". */
export function canStartTerm(token: Token): boolean {
  return !GENERIC_MODIFIERS.has(token.lower);
}

export function isGenericNoun(normal: string): boolean {
  return GENERIC_NOUNS.has(normal);
}

/** Whether a one-word term would be talk about the lecture rather than subject matter (see DISCOURSE_NOUNS). */
export function isDiscourseNoun(normal: string): boolean {
  return DISCOURSE_NOUNS.has(normal);
}
