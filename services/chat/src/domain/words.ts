/** Words that say nothing about what a question is about. */
const STOP_WORDS = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its " +
    "me my of on or so than that the their them then there these they this those to was we were what when where " +
    "which who whom why will with would you your about also any each just more most not only other same such very " +
    "tell explain describe say said mean means according lecture notes note document page"
  ).split(" "),
);

/** The content words of a text: lower case, letters and digits, no stop words, a crude plural/suffix fold. */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? [])
    .map((word) => word.replace(/'s$/u, ""))
    .filter((word) => word.length > 1 && !STOP_WORDS.has(word))
    .map(fold);
}

/** A light stem, enough to meet "enzymes"/"enzyme" and "treaties"/"treaty" (not a linguistic stemmer). */
function fold(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith("es") && /(s|x|z|ch|sh)es$/u.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !word.endsWith("ss")) return word.slice(0, -1);
  return word;
}

/** Abbreviations whose period ends no sentence ("E. coli", "Dr. Koch", "e.g. yeast", "p. 4"). */
const ABBREVIATIONS = new Set(["dr", "mr", "mrs", "ms", "st", "vs", "etc", "e.g", "i.e", "cf", "fig", "p", "pp", "no", "vol", "ca", "approx"]);

/** The sentences of a text (keeps their punctuation). */
export function sentences(text: string): string[] {
  const flat = text.replace(/\s+/gu, " ").trim();
  const found: string[] = [];
  let start = 0;
  for (const end of flat.matchAll(/[.!?]+["”’)]*(?=\s|$)/gu)) {
    const stop = (end.index ?? 0) + end[0].length;
    const before = (flat.slice(start, end.index).split(" ").pop() ?? "").replace(/^[^\p{L}]+/u, "");
    // A single letter ("E." of "E. coli", an initial) or a known abbreviation does not end the sentence.
    if (end[0].startsWith(".") && (/^\p{L}$/u.test(before) || ABBREVIATIONS.has(before.toLowerCase()))) continue;
    found.push(flat.slice(start, stop).trim());
    start = stop;
  }
  if (start < flat.length) found.push(flat.slice(start).trim());
  return found.filter((sentence) => sentence.length > 0);
}
