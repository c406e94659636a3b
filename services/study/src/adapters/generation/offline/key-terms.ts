import type { Definition } from "./definitions";
import { compareText } from "./deterministic";
import { isCapitalised, usedAsVerb, type Token } from "./tagging";
import type { TextUnit } from "./text-units";
import { canStartTerm, endsCompound, isDiscourseNoun, isNominal, isTermHead } from "./vocabulary";

/**
 * What a named term names, from compromise's tags: a person ("Alfred Wegener"), a place ("France"), an
 * organization, another name ("the Himalayas", "the Indian plate"), or a date ("1912", "28 June 1919"); null for a concept. An answer and what stands in for it
 * (a distractor, a swapped term) are of the same kind, or the wrong option gives itself away.
 */
export type EntityKind = "person" | "place" | "organization" | "name" | "date" | null;

/** A salient term of the text: a noun phrase ("electron transport chain") or a single noun ("glycolysis"). */
export interface KeyTerm {
  /** Lower-case words, plurals folded: "electron transport chain". */
  key: string;
  words: string[];
  /** As the text writes it, in the singular when it has one ("ATP synthase", "enzyme"). */
  display: string;
  /** The plural as written, when the text uses one ("enzymes"). */
  pluralDisplay: string | null;
  /** For running text: with "the" when the text mostly says it so ("the Krebs cycle"). */
  inProse: string;
  isAcronym: boolean;
  entity: EntityKind;
  /** Has a word outside everyday English ("glycolysis", "asthenosphere"): surely subject matter. */
  specialist: boolean;
  /** Ranking score relative to the best term: 1 for the best, (0, 1] for the rest. */
  weight: number;
  /** 0 for the most frequent key term … 1 for the least frequent. */
  rarity: number;
  /** Ids of the units that mention it. */
  unitIds: number[];
  defined: boolean;
  /** Matches the term in any of its written forms (singular/plural, hyphen or space, any case). */
  pattern: RegExp;
}

/** A term must occur in at least this many units, unless the text defines it. */
const MIN_UNITS = 2;
const MAX_TERM_WORDS = 4;
/** A shorter phrase found almost only inside a longer one ("transport" in "electron transport chain") is not a term of its own. */
const SUBSUMED_SHARE = 1.25;
/** A noun heading kept phrases is dropped unless it occurs in more than this many times as many units as they do. */
const HEAD_SHARE = 2;
/** Each further word of a phrase makes it this much more salient: phrases are rarer but more specific. */
const PHRASE_BONUS = 0.5;
const DEFINED_BONUS = 1.5;
/** Terms that run through several notes are course themes. */
const CROSS_NOTE_BONUS = 0.25;
/**
 * A term with a word outside everyday English ("glycolysis", "asthenosphere") is subject matter more surely
 * than one made of common words ("change", "price"): an IDF stand-in, everyday English as the background.
 */
const SPECIALIST_BONUS = 1.3;

interface Candidate {
  key: string;
  words: string[];
  unitIds: Set<number>;
  sourceIndexes: Set<number>;
  /** Written form → occurrences, split by whether the form started its unit (and may be capitalised only for that). */
  forms: Map<string, { inside: number; initial: number }>;
  isAcronym: boolean;
  /** Tagged a proper noun somewhere (a name keeps its capital at a sentence start). */
  isProperNoun: boolean;
  entity: EntityKind;
  specialist: boolean;
  defined: boolean;
  /** Mentions as a whole noun phrase (not as the modifier of a longer one: "electron" in "electron transport chain"). */
  mentions: number;
  /** Such mentions right after "the". */
  mentionsAfterThe: number;
  /** Said in a definition's description ("the rigid outer layer of Earth"): an explanation, not a name. */
  explains: boolean;
}

/** The words as written, joined by their hyphens or by spaces. */
function surfaceOf(tokens: readonly Token[], start: number, end: number): string {
  return tokens
    .slice(start, end)
    .map((token, index) => token.text + (index < end - start - 1 ? (token.hyphenatedToNext ? "-" : " ") : ""))
    .join("");
}

/** The kind of name the words are: its first word's tag (Person, Place, Organization), or a date. */
function entityKind(words: readonly Token[]): EntityKind {
  if (words.every((word) => word.tags.has("Date") || word.tags.has("Value"))) return "date";
  const first = words[0].tags;
  if (!first.has("ProperNoun") && !/^\p{Lu}/u.test(words[0].text)) return null;
  if (first.has("Person")) return "person";
  if (first.has("Place")) return "place";
  if (first.has("Organization")) return "organization";
  return first.has("ProperNoun") ? "name" : null;
}

/**
 * Whether a candidate names someone, somewhere or something particular: a proper noun with every word
 * capitalised ("Alfred Wegener", "San Andreas Fault"; not "Krebs cycle", a concept named after someone), so
 * written inside a sentence, or at its start when compromise knows the name or a second capital shows it; and
 * said as a whole phrase, not only as the modifier of one ("Eurasian" in "the Eurasian plate").
 */
const isNamed = (candidate: Candidate) =>
  candidate.entity !== null &&
  candidate.mentions > 0 &&
  candidate.entity !== "date" &&
  [...candidate.forms].some(
    ([form, counts]) =>
      form.split(/[\s-]+/).every((word) => /^\p{Lu}/u.test(word)) && (counts.inside > 0 || candidate.entity !== "name" || capitals(form) > 1),
  );

/** A name and the noun it names ("the Indian plate", "the Krebs cycle"): specific even when said once. */
const isNamedThing = (candidate: Candidate) =>
  candidate.entity !== null && candidate.entity !== "date" && candidate.words.length === 2 && candidate.mentions > 0;

/**
 * A whole noun phrase with a word outside everyday English ("spindle fibres", "cleavage furrow"), said once:
 * subject matter all the same. Ranked below every term said twice, so it only fills a short text's list.
 */
const isSpecialistPhrase = (candidate: Candidate) =>
  candidate.specialist && candidate.mentions > 0 && candidate.entity === null && !candidate.explains;

/** Counts one mention of the phrase tokens[start, end); `endsRun` when it is not the modifier of a longer phrase. */
function addCandidate(
  candidates: Map<string, Candidate>,
  tokens: readonly Token[],
  [start, end]: [number, number],
  endsRun: boolean,
  unit: TextUnit,
): void {
  const words = tokens.slice(start, end).map((token) => token.normal);
  const key = words.join(" ");
  let candidate = candidates.get(key);
  if (!candidate) {
    candidate = {
      key,
      words,
      unitIds: new Set(),
      sourceIndexes: new Set(),
      forms: new Map(),
      isAcronym: false,
      isProperNoun: false,
      entity: entityKind(tokens.slice(start, end)),
      specialist: tokens.slice(start, end).some((token) => !token.common),
      defined: false,
      mentions: 0,
      mentionsAfterThe: 0,
      explains: false,
    };
    candidates.set(key, candidate);
  }
  candidate.unitIds.add(unit.id);
  candidate.sourceIndexes.add(unit.sourceIndex);
  if (endsRun) {
    candidate.mentions += 1;
    if (tokens[start - 1]?.lower === "the") candidate.mentionsAfterThe += 1;
  }
  const surface = surfaceOf(tokens, start, end);
  const counts = candidate.forms.get(surface) ?? { inside: 0, initial: 0 };
  if (start === 0) counts.initial += 1;
  else counts.inside += 1;
  candidate.forms.set(surface, counts);
  if (tokens.slice(start, end).some((token) => token.tags.has("Acronym") || /^[A-Z0-9]{2,}$/.test(token.text))) candidate.isAcronym = true;
  if (tokens.slice(start, end).some((token) => token.tags.has("ProperNoun"))) candidate.isProperNoun = true;
}

/** A word of a date: a year, a day's number or a month, as compromise tags them. */
const isDateWord = (token: Token) => token.tags.has("Date") && /^[\p{L}\p{N}]+$/u.test(token.text);

/**
 * Noun-phrase candidates of one unit: every run of nouns and adjectives (broken by punctuation), and within
 * it every phrase of up to four words that ends with a subject noun and does not start with a generic
 * modifier, so "the inner mitochondrial membrane" yields "inner mitochondrial membrane", "mitochondrial
 * membrane" and "membrane".
 */
function collectCandidates(candidates: Map<string, Candidate>, tokens: readonly Token[], unit: TextUnit): void {
  const runs: [number, number][] = [];
  let runStart = -1;
  tokens.forEach((token, index) => {
    const inRun = (isNominal(token) && !(index > 0 && usedAsVerb(tokens, index))) || (token.hyphenatedToNext && index + 1 < tokens.length);
    if (inRun && runStart < 0) runStart = index;
    if (runStart >= 0 && (!inRun || token.endsPhrase || (endsCompound(token) && index + 1 < tokens.length && isNominal(tokens[index + 1])))) {
      runs.push([runStart, inRun ? index + 1 : index]);
      runStart = -1;
    }
  });
  if (runStart >= 0) runs.push([runStart, tokens.length]);

  // Dates ("1912", "28 June 1919"): the questions of who did what when.
  for (let start = 0; start < tokens.length; start += 1) {
    if (!isDateWord(tokens[start]) || (start > 0 && isDateWord(tokens[start - 1]) && !tokens[start - 1].endsPhrase)) continue;
    let end = start + 1;
    while (end < tokens.length && isDateWord(tokens[end]) && !tokens[end - 1].endsPhrase) end += 1;
    if (tokens.slice(start, end).some((token) => /\d{3,4}/.test(token.text))) addCandidate(candidates, tokens, [start, end], true, unit);
  }

  for (const [runStart, runEnd] of runs) {
    for (let end = runStart + 1; end <= runEnd; end += 1) {
      if (!isTermHead(tokens[end - 1])) continue;
      for (let start = end - 1; start >= Math.max(runStart, end - MAX_TERM_WORDS); start -= 1) {
        const first = tokens[start];
        const startsAfterHyphen = start > 0 && tokens[start - 1].hyphenatedToNext;
        const grades = first.tags.has("Comparative") || first.tags.has("Superlative");
        // "cousin Sir John Middleton", "half-brother John Dashwood": lower-case words before a name describe it.
        const describesName =
          !isCapitalised(first) && tokens.slice(start + 1, end).some((token) => isCapitalised(token) && token.tags.has("ProperNoun"));
        // "Kingdom inflation" of "United Kingdom inflation", "Smoke Ball" of "Carbolic Smoke Ball Co": no term starts inside a name.
        const insideName =
          start > 0 &&
          isCapitalised(first) &&
          isCapitalised(tokens[start - 1]) &&
          !tokens[start - 1].endsPhrase &&
          tokens[start - 1].tags.has("ProperNoun");
        if (describesName || insideName) continue;
        if (!startsAfterHyphen && !grades && canStartTerm(first) && (isNominal(first) || first.hyphenatedToNext)) {
          addCandidate(candidates, tokens, [start, end], end === runEnd, unit);
        }
      }
    }
  }
}

const isPluralOf = (candidate: Candidate, form: string) => form.toLowerCase().split(/[\s-]/).pop() !== candidate.words[candidate.words.length - 1];

const capitals = (form: string) => (form.match(/\p{Lu}/gu) ?? []).length;

/**
 * The form to show: singular if the text has one; of the spellings the text uses most (case aside), the one
 * with the most capitals among those not at a unit's start (a punctuated transcript writes "ATP" where
 * pocketsphinx writes "atp"); a form seen only at a unit's start is de-capitalised unless a name or acronym.
 */
function displayForm(candidate: Candidate): string {
  const forms = [...candidate.forms];
  const singular = forms.filter(([form]) => !isPluralOf(candidate, form));
  const spellings = new Map<string, { inside: number; initial: number; variants: typeof forms }>();
  for (const variant of singular.length ? singular : forms) {
    const spelling = spellings.get(variant[0].toLowerCase()) ?? { inside: 0, initial: 0, variants: [] };
    spelling.inside += variant[1].inside;
    spelling.initial += variant[1].initial;
    spelling.variants.push(variant);
    spellings.set(variant[0].toLowerCase(), spelling);
  }
  const [, best] = [...spellings].sort(([a, x], [b, y]) => y.inside - x.inside || y.initial - x.initial || compareText(a, b))[0];
  const inside = best.variants.filter(([, counts]) => counts.inside > 0);
  if (inside.length) return inside.sort(([a, x], [b, y]) => capitals(b) - capitals(a) || y.inside - x.inside || compareText(a, b))[0][0];
  const [form] = best.variants.sort(([a, x], [b, y]) => y.initial - x.initial || compareText(a, b))[0];
  // A capital further on ("Elinor Dashwood", "Norland Park") marks a name: the first capital is not just the sentence's.
  const looksLikeName = capitals(form) > 1 || candidate.isProperNoun;
  return /^\p{Lu}\p{Ll}*(?:\s|$)/u.test(form) && !candidate.isAcronym && !looksLikeName ? form.charAt(0).toLowerCase() + form.slice(1) : form;
}

function pluralForm(candidate: Candidate, display: string): string | null {
  const plurals = [...candidate.forms.keys()].filter((form) => /[^'’]s$/i.test(form) && isPluralOf(candidate, form)).sort(compareText);
  if (!plurals.length) return null;
  const plural = plurals[0];
  return display.charAt(0) === display.charAt(0).toLowerCase() ? plural.charAt(0).toLowerCase() + plural.slice(1) : plural;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Any written form of the words: singular or regular plural, possessive, joined by spaces or hyphens. */
export function termPattern(words: readonly string[]): RegExp {
  const alternatives = words.map((word) => {
    const stem = /[^aeiou]y$/.test(word) ? `${escapeRegExp(word.slice(0, -1))}(?:y|ies)` : `${escapeRegExp(word)}(?:e?s)?`;
    return `${stem}(?:['’]s)?`;
  });
  // Not inside a hyphenated word ("value" in "p-value").
  return new RegExp(`(?<![\\p{L}\\p{N}]|\\p{L}-)${alternatives.join("[\\s\\-–]+")}(?![\\p{L}\\p{N}]|-\\p{L})`, "iu");
}

/** Whether `inner`'s words appear, in a row, among `outer`'s. */
export function containsTerm(outer: { words: readonly string[] }, inner: { words: readonly string[] }): boolean {
  if (inner.words.length > outer.words.length) return false;
  for (let start = 0; start + inner.words.length <= outer.words.length; start += 1) {
    if (inner.words.every((word, offset) => outer.words[start + offset] === word)) return true;
  }
  return false;
}

function subPhraseKeys(words: readonly string[]): string[] {
  const keys: string[] = [];
  for (let length = 1; length < words.length; length += 1) {
    for (let start = 0; start + length <= words.length; start += 1) keys.push(words.slice(start, start + length).join(" "));
  }
  return keys;
}

/**
 * The text's key terms, best first. Candidates are compromise noun phrases (see collectCandidates) counted
 * by the units that mention them; score = units × phrase-length bonus × defined bonus × specialist bonus ×
 * cross-note bonus.
 * Sub-phrases that hardly occur outside a longer candidate are dropped in its favour. Ties are broken by the
 * term's key, alphabetically, so the ranking is stable.
 */
export function extractKeyTerms(
  units: readonly TextUnit[],
  tokensByUnit: readonly (readonly Token[])[],
  definitions: readonly Definition[],
  limit: number,
): KeyTerm[] {
  const candidates = new Map<string, Candidate>();
  units.forEach((unit, index) => collectCandidates(candidates, tokensByUnit[index], unit));
  for (const definition of definitions) {
    const candidate = candidates.get(definition.termKey);
    if (candidate) candidate.defined = true;
  }
  // Only a phrase said once can be kept for being specialist: only those are checked (a pattern per phrase is costly).
  for (const candidate of candidates.values()) {
    if (candidate.unitIds.size >= MIN_UNITS || !candidate.specialist) continue;
    const inItsUnit = definitions.filter((definition) => candidate.unitIds.has(definition.unitId));
    candidate.explains = inItsUnit.length > 0 && inItsUnit.some((definition) => termPattern(candidate.words).test(definition.description));
  }

  const kept = [...candidates.values()].filter(
    (candidate) =>
      (candidate.unitIds.size >= MIN_UNITS ||
        candidate.defined ||
        isNamed(candidate) ||
        isNamedThing(candidate) ||
        candidate.entity === "date" ||
        isSpecialistPhrase(candidate)) &&
      !(candidate.words.length === 1 && isDiscourseNoun(candidate.key) && !candidate.defined),
  );
  // "prophase metaphase anaphase", said once: three or more terms in a row without commas are a list, not a term.
  const singles = new Set(
    kept.filter((candidate) => candidate.words.length === 1 && candidate.unitIds.size >= MIN_UNITS).map((candidate) => candidate.key),
  );
  const listed = (candidate: Candidate) =>
    candidate.words.length >= 3 && candidate.unitIds.size < MIN_UNITS && candidate.words.every((word) => singles.has(word));
  kept.splice(0, kept.length, ...kept.filter((candidate) => !listed(candidate)));
  const keptKeys = new Set(kept.map((candidate) => candidate.key));
  // A phrase said once that only fills the list does not stand for the words it is made of.
  const filler = (candidate: Candidate) =>
    candidate.unitIds.size < MIN_UNITS && !candidate.defined && !isNamed(candidate) && !isNamedThing(candidate) && candidate.entity !== "date";
  const subsumed = new Set<string>();
  for (const phrase of kept) {
    if (filler(phrase)) continue;
    for (const key of subPhraseKeys(phrase.words)) {
      const part = candidates.get(key);
      if (part && keptKeys.has(key) && !part.defined && part.unitIds.size <= phrase.unitIds.size * SUBSUMED_SHARE) subsumed.add(key);
    }
  }

  // A noun that heads kept phrases mostly stands for them ("the chain" for "the electron transport chain").
  const unitsOfPhrasesByHead = new Map<string, number>();
  for (const phrase of kept) {
    if (phrase.words.length === 1 || subsumed.has(phrase.key) || filler(phrase)) continue;
    const head = phrase.words[phrase.words.length - 1];
    unitsOfPhrasesByHead.set(head, (unitsOfPhrasesByHead.get(head) ?? 0) + phrase.unitIds.size);
  }
  for (const word of kept) {
    const phraseUnits = unitsOfPhrasesByHead.get(word.key) ?? 0;
    if (word.words.length === 1 && !word.defined && phraseUnits > 0 && word.unitIds.size <= HEAD_SHARE * phraseUnits) subsumed.add(word.key);
  }

  const scored = kept
    .filter((candidate) => !subsumed.has(candidate.key))
    .map((candidate) => ({
      candidate,
      score:
        candidate.unitIds.size *
        (1 + PHRASE_BONUS * (candidate.words.length - 1)) *
        (candidate.defined ? DEFINED_BONUS : 1) *
        (candidate.specialist ? SPECIALIST_BONUS : 1) *
        (1 + CROSS_NOTE_BONUS * (candidate.sourceIndexes.size - 1)),
    }))
    .sort((a, b) => b.score - a.score || compareText(a.candidate.key, b.candidate.key));
  // Names and dates said once are facts to ask about, not themes: they come on top of the limit.
  const isEntity = ({ candidate }: (typeof scored)[number]) =>
    candidate.unitIds.size < MIN_UNITS && (isNamed(candidate) || isNamedThing(candidate) || candidate.entity === "date");
  const themes = scored.filter((entry) => !isEntity(entry)).slice(0, limit);
  const ranked = [...themes, ...scored.filter(isEntity)].sort((a, b) => b.score - a.score || compareText(a.candidate.key, b.candidate.key));
  if (!ranked.length) return [];

  const best = ranked[0].score;
  const terms = ranked.map(({ candidate, score }) => {
    const display = displayForm(candidate);
    const pattern = termPattern(candidate.words);
    return {
      key: candidate.key,
      words: candidate.words,
      display,
      pluralDisplay: pluralForm(candidate, display),
      inProse: candidate.mentions > 0 && candidate.mentionsAfterThe * 2 >= candidate.mentions ? `the ${display}` : display,
      isAcronym: candidate.isAcronym,
      entity: isNamed(candidate) || candidate.entity === "date" ? candidate.entity : null,
      specialist: candidate.specialist,
      weight: score / best,
      rarity: 0,
      unitIds: units.filter((unit) => pattern.test(unit.text)).map((unit) => unit.id),
      defined: candidate.defined,
      pattern,
    };
  });
  const byFrequency = [...terms].sort((a, b) => b.unitIds.length - a.unitIds.length || compareText(a.key, b.key));
  byFrequency.forEach((term, index) => (term.rarity = terms.length > 1 ? index / (terms.length - 1) : 0));
  return terms;
}
