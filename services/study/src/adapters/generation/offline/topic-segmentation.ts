/** About this many content words (some 300 words of speech) make one study-guide section... */
const CONTENT_WORDS_PER_TOPIC = 150;
/** ...up to this many sections per note. */
const MAX_TOPICS = 8;
/** Fewer units than this never make a section of their own. */
const SHORTEST_TOPIC_UNITS = 4;

type Bag = Map<string, number>;

function bagOf(wordLists: readonly (readonly string[])[]): Bag {
  const bag: Bag = new Map();
  for (const words of wordLists) for (const word of words) bag.set(word, (bag.get(word) ?? 0) + 1);
  return bag;
}

function cosine(a: Bag, b: Bag): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (const [word, count] of a) {
    normA += count * count;
    dot += count * (b.get(word) ?? 0);
  }
  for (const count of b.values()) normB += count * count;
  return normA && normB ? dot / Math.sqrt(normA * normB) : 0;
}

/** How deep the similarity valley at `gap` is: the climb to the nearest peak on each side (Hearst's depth score). */
function depthAt(similarities: readonly number[], gap: number): number {
  let left = gap;
  while (left > 0 && similarities[left - 1] >= similarities[left]) left -= 1;
  let right = gap;
  while (right < similarities.length - 1 && similarities[right + 1] >= similarities[right]) right += 1;
  return similarities[left] - similarities[gap] + (similarities[right] - similarities[gap]);
}

/**
 * Splits one note's units into topical blocks, TextTiling-style (Hearst 1997): the lexical similarity
 * (cosine of content-word counts) of the units before and after every gap, smoothed; gaps where it dips
 * deepest start a new topic. At most one block per ~300 words (8 per note), blocks of at least four units,
 * only dips deeper than the mean minus half a standard deviation. Returns [start, end) unit index ranges.
 */
export function topicBlocks(contentWordsByUnit: readonly (readonly string[])[]): [number, number][] {
  const count = contentWordsByUnit.length;
  const totalWords = contentWordsByUnit.reduce((sum, words) => sum + words.length, 0);
  const wanted = Math.min(MAX_TOPICS, Math.max(1, Math.round(totalWords / CONTENT_WORDS_PER_TOPIC)));
  const shortest = Math.max(SHORTEST_TOPIC_UNITS, Math.floor(count / (2 * wanted)));
  if (wanted === 1 || count < 2 * shortest) return [[0, count]];

  const window = Math.min(6, Math.max(2, Math.round(count / 15)));
  const raw = Array.from({ length: count }, (_, gap) =>
    gap === 0 ? 0 : cosine(bagOf(contentWordsByUnit.slice(Math.max(0, gap - window), gap)), bagOf(contentWordsByUnit.slice(gap, gap + window))),
  );
  const similarities = raw.map((value, gap) => (gap === 0 ? value : (raw[Math.max(1, gap - 1)] + value + raw[Math.min(count - 1, gap + 1)]) / 3));

  const gaps = Array.from({ length: count - 2 * shortest + 1 }, (_, index) => index + shortest);
  const depths = new Map(gaps.map((gap) => [gap, depthAt(similarities, gap)]));
  const values = [...depths.values()];
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const deviation = Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length);
  const cutoff = Math.max(0, mean - deviation / 2);

  const boundaries: number[] = [];
  for (const gap of [...gaps].sort((a, b) => (depths.get(b) ?? 0) - (depths.get(a) ?? 0) || a - b)) {
    if (boundaries.length === wanted - 1) break;
    if ((depths.get(gap) ?? 0) <= cutoff) break;
    if (boundaries.every((boundary) => Math.abs(boundary - gap) >= shortest)) boundaries.push(gap);
  }
  const starts = [0, ...boundaries.sort((a, b) => a - b)];
  return starts.map((start, index) => [start, starts[index + 1] ?? count]);
}
