import type { Citation, Passage } from "./passage";
import { contentWords, sentences } from "./words";

/**
 * The citations of an answer a language model wrote: the [n] markers it used that name a passage it was given
 * (any other marker is dropped, so every citation points at a retrieved passage), once each, in the order of first
 * use; the quote is the passage's sentence closest to the answer's sentence that cites it.
 */
export function citationsOf(answer: string, passages: readonly Passage[]): Citation[] {
  const seen = new Map<number, Citation>();
  for (const sentence of sentences(answer)) {
    for (const match of sentence.matchAll(/\[(\d{1,3})\]/gu)) {
      const marker = Number(match[1]);
      const passage = passages[marker - 1];
      if (!passage || seen.has(marker)) continue;
      seen.set(marker, {
        marker,
        type: passage.sourceType,
        id: passage.sourceId,
        title: passage.title,
        startTime: passage.startTime,
        page: passage.page,
        quote: closestSentence(passage.text, sentence),
      });
    }
  }
  return [...seen.values()];
}

function closestSentence(text: string, to: string): string {
  const wanted = new Set(contentWords(to));
  const candidates = sentences(text);
  let best = candidates[0] ?? text;
  let bestHits = -1;
  for (const candidate of candidates) {
    const hits = contentWords(candidate).filter((word) => wanted.has(word)).length;
    if (hits > bestHits) {
      best = candidate;
      bestHits = hits;
    }
  }
  return best.length <= 320 ? best : `${best.slice(0, 319)}…`;
}

/**
 * The passages as the model reads them: numbered, fenced as data. Their text cannot close the fence (any
 * `</passages>` inside is neutralised), so nothing in a document can pose as the system's words.
 */
export function fencedPassages(passages: readonly Passage[]): string {
  const blocks = passages.map((passage, index) => {
    const text = passage.text.replace(/<\/?\s*passages?\s*>/giu, "[removed tag]");
    return `[${index + 1}] (${passage.sourceType}: ${passage.title}${passage.page !== null ? `, page ${passage.page}` : ""}${passage.startTime !== null ? `, at ${Math.floor(passage.startTime)} s` : ""})\n${text}`;
  });
  return `<passages>\n${blocks.join("\n\n")}\n</passages>`;
}
