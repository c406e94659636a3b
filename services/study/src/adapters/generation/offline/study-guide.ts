import type { GeneratedStudyGuide, GeneratedStudySection, SourceDocument, SourceNote } from "../../../domain/study-material";
import type { StudyText } from "./analysis";
import { compareText } from "./deterministic";
import type { DifficultyProfile } from "./difficulty-profile";
import { isEverydayWord, isFact, overlaps, similarity, sourceOf, standaloneTerms, termOf } from "./exercises";
import { containsTerm, type KeyTerm } from "./key-terms";
import { capitalize, formatTimestamp, listInProse } from "./prose";
import { topicBlocks } from "./topic-segmentation";
import { SINGULAR_IN_S } from "./vocabulary";

const TITLE_TERMS = 3;
/** A further title term must score at least this share of the block's best term. */
const TITLE_TERM_SHARE = 0.5;
/** A term the block defines, or a technical one, says what the block is about better than an everyday word. */
const DEFINED_TITLE_BONUS = 1.5;
const SPECIALIST_TITLE_BONUS = 1.5;
/** A sentence sharing more than this share of its content words with a chosen one repeats it. */
const REDUNDANT_OVERLAP = 0.6;
const MIN_OVERVIEW_SENTENCES = 4;
const MAX_OVERVIEW_SENTENCES = 8;
/** The opening sentences of a note state its topic: their overview score counts up to this much more... */
const LEAD_BONUS = 0.3;
/** ...fading to nothing at this share of the note. */
const LEAD_SHARE = 0.2;
/** A sentence that defines a key term says what the material is about. */
const DEFINITION_BONUS = 1.3;
const GUIDE_KEY_TERMS = 12;
const DRILL_TERMS = 5;
/** Terms considered for "Compare A and B": the best-ranked ones. */
const COMPARABLE_POOL = 20;

interface Block {
  unitIds: number[];
  titleTerms: KeyTerm[];
}

/** Unit ids by source, each source's split into topical blocks (a section never spans two notes or documents). */
function blocksOf(text: StudyText): number[][] {
  const blocks: number[][] = [];
  let noteStart = 0;
  for (let index = 1; index <= text.units.length; index += 1) {
    if (index < text.units.length && text.units[index].sourceIndex === text.units[noteStart].sourceIndex) continue;
    const ids = text.units.slice(noteStart, index).map((unit) => unit.id);
    for (const [from, to] of topicBlocks(ids.map((id) => text.contentWordsByUnit[id]))) blocks.push(ids.slice(from, to));
    noteStart = index;
  }
  return splitLongBlocks(text, blocks);
}

/** A section of more sentences than this is split in two, while the guide has fewer than MOST_SECTIONS. */
const LONGEST_SECTION_UNITS = 8;
const MOST_SECTIONS = 12;

/** Content words two runs of units share, over the smaller run's: how much they are about the same thing. */
function sharedWords(text: StudyText, a: readonly number[], b: readonly number[]): number {
  const words = (ids: readonly number[]) => new Set(ids.flatMap((id) => text.contentWordsByUnit[id]));
  const [left, right] = [words(a), words(b)];
  const shared = [...left].filter((word) => right.has(word)).length;
  return shared / Math.max(1, Math.min(left.size, right.size));
}

/**
 * A guide of one or two long sections reads like the notes again: the longest section is split, where its
 * two halves share the fewest words (within its middle half), until every section is short or there are
 * enough sections. Deterministic: ties go to the earlier cut.
 */
function splitLongBlocks(text: StudyText, blocks: number[][]): number[][] {
  const result = [...blocks];
  while (result.length < MOST_SECTIONS) {
    const longest = result.reduce((best, block, index) => (block.length > result[best].length ? index : best), 0);
    const block = result[longest];
    if (block.length <= LONGEST_SECTION_UNITS) break;
    let cut = Math.floor(block.length / 2);
    let fewest = Number.POSITIVE_INFINITY;
    for (let at = Math.ceil(block.length / 4); at <= Math.floor((3 * block.length) / 4); at += 1) {
      const overlap = sharedWords(text, block.slice(Math.max(0, at - 3), at), block.slice(at, at + 3));
      if (overlap < fewest) [cut, fewest] = [at, overlap];
    }
    result.splice(longest, 1, block.slice(0, cut), block.slice(cut));
  }
  return result;
}

/**
 * Each block's dominant terms: units of the block mentioning them (on their own, not inside a longer term) ×
 * how few blocks mention them (TF-IDF over blocks) × overall weight, defined and technical terms favoured.
 */
function titleTerms(text: StudyText, blocks: number[][]): KeyTerm[][] {
  const mentions = blocks.map((ids) => {
    const counts = new Map<KeyTerm, number>();
    for (const id of ids) for (const term of standaloneTerms(text, id)) counts.set(term, (counts.get(term) ?? 0) + 1);
    return counts;
  });
  const blocksWith = new Map<KeyTerm, number>();
  for (const counts of mentions) for (const term of counts.keys()) blocksWith.set(term, (blocksWith.get(term) ?? 0) + 1);
  return mentions.map((counts) => {
    const ranked = [...counts]
      .map(([term, count]) => ({
        term,
        score:
          count *
          Math.log((1 + blocks.length) / (blocksWith.get(term) ?? 1)) *
          (0.5 + term.weight) *
          (term.defined ? DEFINED_TITLE_BONUS : 1) *
          (term.specialist ? SPECIALIST_TITLE_BONUS : 1),
      }))
      .sort((a, b) => b.score - a.score || compareText(a.term.key, b.term.key));
    const chosen: KeyTerm[] = [];
    for (const { term, score } of ranked) {
      if (chosen.length === TITLE_TERMS || (chosen.length > 0 && score < TITLE_TERM_SHARE * ranked[0].score)) break;
      if (!chosen.some((other) => overlaps(other, term))) chosen.push(term);
    }
    return chosen;
  });
}

function overlapShare(candidate: readonly string[], chosen: ReadonlySet<string>): number {
  if (candidate.length === 0) return 0;
  return candidate.filter((word) => chosen.has(word)).length / candidate.length;
}

/** The most informative units among `ids` that do not repeat each other, in text order. */
function mostInformative(text: StudyText, ids: readonly number[], limit: number, score: (id: number) => number): number[] {
  const ranked = ids.filter((id) => isFact(text, text.units[id]) && text.informativeness[id] > 0).sort((a, b) => score(b) - score(a) || a - b);
  const chosen: number[] = [];
  for (const id of ranked) {
    if (chosen.length === limit) break;
    const words = text.contentWordsByUnit[id];
    if (chosen.some((other) => overlapShare(words, new Set(text.contentWordsByUnit[other])) > REDUNDANT_OVERLAP)) continue;
    chosen.push(id);
  }
  return chosen.sort((a, b) => a - b);
}

/** Marks the first mention of each term in bold, where the sentence mentions it on its own. */
function withTermsInBold(text: StudyText, unitId: number, terms: readonly KeyTerm[]): string {
  const standalone = new Set(standaloneTerms(text, unitId));
  return terms
    .filter((term) => standalone.has(term))
    .reduce((marked, term) => marked.replace(term.pattern, (mention) => `**${mention}**`), text.units[unitId].statement);
}

/** Bullets per section: up to this share of its sentences (those not repeating another), at most MOST_BULLETS. */
const BULLET_SHARE = 0.9;
const MOST_BULLETS = 10;

function section(text: StudyText, profile: DifficultyProfile, block: Block, title: string): GeneratedStudySection {
  // A guide restates what the notes state: nearly every fact of a short section, the best of a long one.
  const limit = Math.min(MOST_BULLETS, Math.max(profile.bulletsPerSection, Math.ceil(BULLET_SHARE * block.unitIds.length)));
  // Sentences on a focus area first (informativeness is at most 1).
  const chosen = mostInformative(text, block.unitIds, limit, (id) => text.informativeness[id] + (text.focus[id] ? 1 : 0));
  // A block of short or term-less sentences still says something: its opening sentences.
  const bullets = chosen.length ? chosen : block.unitIds.slice(0, 2);
  const inBlock = new Set(block.unitIds);
  return {
    title,
    content: bullets.map((id) => `- ${withTermsInBold(text, id, block.titleTerms)}`).join("\n"),
    subsections: text.definitions
      .filter((definition) => inBlock.has(definition.unitId))
      .map((definition) => ({ title: capitalize(termOf(text, definition).display), content: definition.source })),
    source: sourceOf(text.units[block.unitIds[0]]),
  };
}

/**
 * An extractive summary that touches every topic: the best sentence of each block (definitions and each
 * note's opening favoured), topped up from the whole text when there are few blocks, in text order.
 */
function overview(text: StudyText, blocks: readonly Block[]): string {
  const lead = (id: number) => 1 + LEAD_BONUS * Math.max(0, 1 - text.units[id].position / LEAD_SHARE);
  const defining = new Set(text.definitions.map((definition) => definition.unitId));
  const score = (id: number) => text.informativeness[id] * lead(id) * (defining.has(id) ? DEFINITION_BONUS : 1);
  const perBlock = blocks.slice(0, MAX_OVERVIEW_SENTENCES).flatMap((block) => mostInformative(text, block.unitIds, 1, score));
  const remaining = text.units.map((unit) => unit.id).filter((id) => !perBlock.includes(id));
  const topUp = mostInformative(text, remaining, Math.max(0, MIN_OVERVIEW_SENTENCES - perBlock.length), score);
  const chosen = [...perBlock, ...topUp].sort((a, b) => a - b);
  // Units of unpunctuated speech get a full stop so the paragraph reads as sentences.
  return (chosen.length ? chosen : [0]).map((id) => text.units[id].statement.replace(/([^.!?])$/, "$1.")).join(" ");
}

/** Pairs of similar key terms (same kind, shared words, same topic): what a learner tends to confuse. */
function comparablePairs(text: StudyText): [KeyTerm, KeyTerm][] {
  const pool = text.terms.slice(0, COMPARABLE_POOL);
  const pairs = pool
    .flatMap((a, index) => pool.slice(index + 1).map((b): [KeyTerm, KeyTerm] => [a, b]))
    // A person is not compared with a place ("Elinor Dashwood and Norland Park"), nor a name with a concept; dates are not compared.
    .filter(([a, b]) => !overlaps(a, b) && a.entity === b.entity && a.entity !== "date")
    .map((pair) => ({ pair, score: similarity(pair[0], pair[1]) + (pair[0].defined && pair[1].defined ? 0.2 : 0) }))
    .sort((a, b) => b.score - a.score || compareText(`${a.pair[0].key}|${a.pair[1].key}`, `${b.pair[0].key}|${b.pair[1].key}`));
  const used = new Set<KeyTerm>();
  const chosen: [KeyTerm, KeyTerm][] = [];
  for (const { pair } of pairs) {
    if (used.has(pair[0]) || used.has(pair[1])) continue;
    chosen.push(pair);
    used.add(pair[0]).add(pair[1]);
  }
  return chosen;
}

/**
 * The terms a guide lists, best first: not an everyday word ("cell", "order", "layer"), nor a word said only
 * inside longer terms ("insertion" of "insertion sort"), unless the notes define it or it is a name.
 */
function guideKeyTerms(text: StudyText): string[] {
  // Said only inside longer terms: every sentence that says it says one of them.
  const partOfPhrase = (term: KeyTerm) => {
    if (term.words.length > 1 || term.defined || term.entity !== null) return false;
    const phrases = text.terms.filter((other) => other.words.length > 1 && containsTerm(other, term));
    return phrases.length > 0 && term.unitIds.every((id) => phrases.some((phrase) => phrase.unitIds.includes(id)));
  };
  return text.terms
    .filter((term) => !isEverydayWord(term) && !partOfPhrase(term))
    .slice(0, GUIDE_KEY_TERMS)
    .map((term) => term.display);
}

/** Whether a term as written is plural ("convergent boundaries"), for the verb that follows it. */
const isPluralPhrase = (written: string) => /[^'’s]s$/i.test(written) && !SINGULAR_IN_S.test(written);

/**
 * The section's best two title terms that some sentence of the section says together: the notes relate them,
 * so "Explain how A relates to B" asks for something they hold.
 */
function relatedPair(text: StudyText, block: Block): [KeyTerm, KeyTerm] | null {
  const terms = block.titleTerms;
  for (let i = 0; i < terms.length; i += 1) {
    for (let j = i + 1; j < terms.length; j += 1) {
      if (overlaps(terms[i], terms[j])) continue;
      if (block.unitIds.some((id) => text.termsByUnit[id].includes(terms[i]) && text.termsByUnit[id].includes(terms[j]))) return [terms[i], terms[j]];
    }
  }
  return null;
}

/** Bloom's verbs in the level's mix: define the defined terms, explain how a section's terms relate, compare look-alikes. */
function learningObjectives(text: StudyText, profile: DifficultyProfile, blocks: readonly Block[], pairs: readonly [KeyTerm, KeyTerm][]): string[] {
  const defined = text.terms.filter((term) => term.defined);
  const define = defined.slice(0, profile.objectives.define).map((term) => `Define ${term.inProse} in your own words.`);
  const explain = blocks
    .map((block) => relatedPair(text, block))
    .filter((pair): pair is [KeyTerm, KeyTerm] => pair !== null)
    .slice(0, profile.objectives.explain)
    .map(([a, b]) => `Explain how ${a.inProse} ${isPluralPhrase(a.inProse) ? "relate" : "relates"} to ${b.inProse}.`);
  const compare = pairs.slice(0, profile.objectives.compare).map(([a, b]) => `Compare ${a.inProse} and ${b.inProse}.`);
  const objectives = [...define, ...explain, ...compare];
  return objectives.length ? objectives : [`Explain what the notes say about ${text.terms[0].inProse}.`];
}

/** Tips from the material: which terms to drill, where to start, what not to confuse, where to replay or reread, when to review. */
function studyTips(
  text: StudyText,
  profile: DifficultyProfile,
  sources: { notes: readonly SourceNote[]; documents: readonly SourceDocument[] },
  sections: readonly { block: Block; title: string }[],
  pairs: readonly [KeyTerm, KeyTerm][],
): string[] {
  const tips: string[] = [];
  const defined = text.terms.filter((term) => term.defined).slice(0, DRILL_TERMS);
  if (defined.length) {
    tips.push(`Drill the defined terms with flashcards until you can state each definition: ${listInProse(defined.map((term) => term.inProse))}.`);
  }
  if (sections.length > 1) {
    const largest = sections.reduce((best, section) => (section.block.unitIds.length > best.block.unitIds.length ? section : best));
    tips.push(`The notes spend the most time on "${largest.title}": start your review with that section.`);
  }
  if (pairs.length) {
    const [a, b] = pairs[0];
    tips.push(`${capitalize(a.inProse)} and ${b.inProse} are easy to mix up: write one sentence that tells them apart.`);
  }
  const top = text.terms[0];
  const firstMention = text.units[top.unitIds[0]];
  if (firstMention && firstMention.startTime !== null) {
    const note = sources.notes.find((candidate) => candidate.noteId === firstMention.sourceId);
    tips.push(`Replay "${note?.title ?? "the recording"}" from ${formatTimestamp(firstMention.startTime)}, where ${top.inProse} first comes up.`);
  } else if (firstMention && firstMention.page !== null) {
    const document = sources.documents.find((candidate) => candidate.documentId === firstMention.sourceId);
    tips.push(`Reread page ${firstMention.page} of "${document?.title || "the document"}", where ${top.inProse} first comes up.`);
  }
  tips.push(profile.reviewTip);
  return tips;
}

/**
 * A guide whose sections follow the text's topics (see topicBlocks): each titled by its dominant key terms,
 * its most informative sentences as bullets (key terms in bold), a subsection per term defined in it, and a
 * link to where it starts (sections on a focus area first). Overview = an extractive summary; objectives and tips
 * are built from the terms.
 */
export function buildStudyGuide(
  text: StudyText,
  profile: DifficultyProfile,
  title: string,
  notes: readonly SourceNote[],
  documents: readonly SourceDocument[] = [],
): GeneratedStudyGuide {
  const unitBlocks = blocksOf(text);
  const terms = titleTerms(text, unitBlocks);
  const blocks: Block[] = unitBlocks.map((unitIds, index) => ({ unitIds, titleTerms: terms[index] }));
  const seen = new Map<string, number>();
  const titles = blocks.map((block, index) => {
    const named = block.titleTerms.length ? capitalize(listInProse(block.titleTerms.map((term) => term.display))) : `Part ${index + 1}`;
    const repeats = (seen.get(named) ?? 0) + 1;
    seen.set(named, repeats);
    return repeats > 1 ? `${named} (${repeats})` : named;
  });
  const pairs = comparablePairs(text);
  const covered = listInProse(text.terms.slice(0, 3).map((term) => term.inProse));
  return {
    title: `${title} — Study Guide`,
    description: `A study guide to ${title} in ${blocks.length} ${blocks.length === 1 ? "section" : "sections"}, covering ${covered}.`,
    overview: overview(text, blocks),
    keyTerms: guideKeyTerms(text),
    learningObjectives: learningObjectives(text, profile, blocks, pairs),
    studyTips: studyTips(
      text,
      profile,
      { notes, documents },
      blocks.map((block, index) => ({ block, title: titles[index] })),
      pairs,
    ),
    sections: blocks
      .map((block, index) => ({ block, index, focus: block.unitIds.some((id) => text.focus[id]) }))
      .sort((a, b) => Number(b.focus) - Number(a.focus) || a.index - b.index)
      .map(({ block, index }) => section(text, profile, block, titles[index])),
  };
}
