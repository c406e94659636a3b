/** Abbreviations whose period never ends a sentence ("Dr. Smith", "e.g. mitosis"). Lower case, without the final period. */
const ABBREVIATIONS = new Set(["mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "e.g", "i.e", "cf", "al", "approx"]);
/** Abbreviations that end a sentence unless a number follows ("see Fig. 3", but "the answer is no."). */
const ABBREVIATIONS_BEFORE_NUMBER = new Set(["no", "nos", "fig", "figs", "eq", "vol", "ch", "p", "pp", "sec"]);

const segmenters = new Map<string, Intl.Segmenter>();
function sentenceSegmenter(locale: string): Intl.Segmenter {
  let segmenter = segmenters.get(locale);
  if (!segmenter) {
    segmenter = new Intl.Segmenter(locale, { granularity: "sentence" });
    segmenters.set(locale, segmenter);
  }
  return segmenter;
}

/** Whether ICU's sentence break after `sentence` is a false one caused by an abbreviation. */
function endsWithAbbreviation(sentence: string, next: string): boolean {
  const match = /(?:^|[\s("'])((?:[A-Za-z]\.)*[A-Za-z]+)\.$/.exec(sentence);
  if (!match) return false;
  const word = match[1].toLowerCase();
  return ABBREVIATIONS.has(word) || (ABBREVIATIONS_BEFORE_NUMBER.has(word) && /^\d/.test(next));
}

/**
 * Splits text into sentences with ICU's rules (`Intl.Segmenter`, granularity "sentence"), then rejoins the
 * false breaks ICU makes after common abbreviations (ICU's suppression lists are not exposed through
 * Intl). Line breaks end a sentence; whitespace inside one is collapsed; empty pieces are dropped.
 */
export function splitSentences(text: string, locale = "en"): string[] {
  const pieces = Array.from(sentenceSegmenter(locale).segment(text), (piece) => piece.segment.replace(/\s+/g, " ").trim()).filter((piece) =>
    /[\p{L}\p{N}]/u.test(piece),
  );
  const sentences: string[] = [];
  let pending = "";
  pieces.forEach((piece, index) => {
    pending = pending ? `${pending} ${piece}` : piece;
    const next = pieces[index + 1];
    if (next === undefined || !endsWithAbbreviation(pending, next)) {
      sentences.push(pending);
      pending = "";
    }
  });
  return sentences;
}
