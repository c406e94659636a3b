const segmenters = new Map<string, Intl.Segmenter>();
function wordSegmenter(locale: string): Intl.Segmenter {
  let segmenter = segmenters.get(locale);
  if (!segmenter) {
    segmenter = new Intl.Segmenter(locale, { granularity: "word" });
    segmenters.set(locale, segmenter);
  }
  return segmenter;
}

/**
 * The words of a text, lower-cased, in order: ICU's word boundaries (`Intl.Segmenter`), keeping only
 * word-like pieces (no punctuation or spaces). Typographic apostrophes become "'" so "don’t" and "don't"
 * are one word; numbers ("3.14") count as words.
 */
export function tokenizeWords(text: string, locale = "en"): string[] {
  const words: string[] = [];
  for (const piece of wordSegmenter(locale).segment(text)) {
    if (piece.isWordLike) words.push(piece.segment.replace(/[\u2018\u2019\u02bc]/g, "'").toLocaleLowerCase(locale));
  }
  return words;
}
