import { ENGLISH_STOP_WORDS, normalizeTerm, splitSentences, tokenizeWords } from "@study/ai/text";

/** Words of a question that say what kind of answer is wanted, not what it is about. */
const QUESTION_WORDS = ["tell", "explain", "describe", "say", "said", "mean", "means", "according", "lecture", "notes", "note", "document", "page"];
const STOP_WORDS: ReadonlySet<string> = new Set([...ENGLISH_STOP_WORDS, ...QUESTION_WORDS]);

/**
 * The content words of a text (the shared tokenizer and stop words, plurals folded), numbers kept: a year or a
 * figure is often what a question is about ("What happened in 1648?").
 */
export function contentWords(text: string): string[] {
  return tokenizeWords(text)
    .map((word) => word.replace(/'s$/u, ""))
    .filter((word) => (word.length > 1 || /\p{N}/u.test(word)) && !STOP_WORDS.has(word))
    .map(normalizeTerm);
}

/** The sentences of a text (ICU's rules, abbreviations such as "Dr." and "p. 4" kept inside their sentence). */
export const sentences = (text: string): string[] => splitSentences(text);
