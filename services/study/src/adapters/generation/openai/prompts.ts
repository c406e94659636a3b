import type { GenerationInput } from "../../../application/ports/study-material-generator.port";
import { TRUE_FALSE_OPTIONS, type Difficulty } from "../../../domain/study-material";
import { renderSourceText } from "./source-text";

export interface ChatMessage {
  role: "system" | "user";
  content: string;
}

const DIFFICULTY_MEANING: Record<Difficulty, string> = {
  EASY: "EASY: introductory level; recall of the main definitions and key facts, in plain wording.",
  MEDIUM: "MEDIUM: intermediate level; understanding of the concepts and how they relate, besides the key facts.",
  HARD: "HARD: advanced level; application, analysis, comparison and multi-step reasoning, including subtle distinctions and details.",
};

/** How the rules name the material: "the notes" for a request from notes, as always; "the documents"; or both. */
interface Wording {
  /** What the student revises: "lecture notes". */
  revising: string;
  /** "notes", "documents", "notes and documents". */
  material: string;
}

function wording(input: GenerationInput): Wording {
  const documents = (input.documents ?? []).length > 0;
  if (!documents) return { revising: "lecture notes", material: "notes" };
  if (input.notes.length === 0) return { revising: "course documents", material: "documents" };
  return { revising: "lecture notes and course documents", material: "notes and documents" };
}

const NOTE_CITATION_RULES = [
  "Transcripts come from speech recognition and may contain misheard words; follow the evident meaning.",
  "Every passage of the notes starts with a tag such as [note <id>, t=<seconds>]. Cite the passage each item is based on:",
  "sourceNoteId is the note id from its tag, sourceStartTime its t= value, or null when the tag has no t= (an untimed transcript).",
];

const DOCUMENT_CITATION_RULES = [
  "Every passage of a document starts with a tag such as [document <id>, p=<page>]. Cite the passage each item is based on:",
  "sourceDocumentId is the document id from its tag, sourcePage its p= value.",
];

function commonRules(input: GenerationInput, words: Wording): string[] {
  const rules = [`Use only information from the ${words.material}, and write in the ${words.material}' language.`];
  const notes = input.notes.length > 0;
  const documents = (input.documents ?? []).length > 0;
  if (notes) rules.push(...NOTE_CITATION_RULES);
  if (documents) rules.push(...DOCUMENT_CITATION_RULES);
  if (notes && documents) rules.push("An item based on a note has null document fields; one based on a document has null note fields.");
  return rules;
}

/** Focus areas: said in the rules, so that the items on them are chosen and listed first. */
function focusRules(input: GenerationInput, words: Wording): string[] {
  const areas = (input.focusAreas ?? []).map((area) => area.trim()).filter(Boolean);
  if (areas.length === 0) return [];
  return [
    `Focus areas: ${areas.map((area) => `"${area}"`).join(", ")}. Give priority to the passages of the ${words.material} that mention them:`,
    "base the first items on those passages and cover them before any other topic; use the other passages only for the rest.",
  ];
}

function difficultyRule(difficulty: Difficulty): string {
  return `Difficulty ${DIFFICULTY_MEANING[difficulty]}`;
}

function flashcardRules(cardCount: number, difficulty: Difficulty, words: Wording): string[] {
  return [
    `You write flashcards for a student revising ${words.revising}.`,
    `Write exactly ${cardCount} flashcards (fewer only if the ${words.material} do not hold that many distinct facts), each on a different point.`,
    "front: a question, term or prompt; back: its answer, short and self-contained.",
    "title: a short title for the set; description: one sentence on what it covers.",
    difficultyRule(difficulty),
  ];
}

function quizRules(questionCount: number, difficulty: Difficulty, words: Wording): string[] {
  const [yes, no] = TRUE_FALSE_OPTIONS;
  return [
    `You write quiz questions for a student revising ${words.revising}.`,
    `Write exactly ${questionCount} questions (fewer only if the ${words.material} do not hold that many distinct facts), each on a different point; mostly multiple_choice, some true_false.`,
    "A multiple_choice question has exactly four distinct options, one of them correct and three plausible but wrong.",
    `A true_false question has exactly the options ["${yes}", "${no}"], in this order.`,
    `correctAnswer is one of the options, copied verbatim. explanation says why it is correct, from the ${words.material}.`,
    "title: a short title for the quiz; description: one sentence on what it covers.",
    difficultyRule(difficulty),
  ];
}

function studyGuideRules(difficulty: Difficulty, words: Wording): string[] {
  return [
    `You write a study guide for a student revising ${words.revising}.`,
    "title: a short title; description: one sentence on what it covers; overview: one paragraph summarising the material.",
    "keyTerms: the important terms and concepts, each a short phrase. learningObjectives: what the student should be able to do afterwards, each starting with a verb. studyTips: practical advice for revising this material.",
    `sections: the topics of the ${words.material} in their order, each with a title and Markdown content (paragraphs, bullet lists, **bold** key terms; no heading for the section itself); subsections go deeper into a part of a topic, or are an empty list.`,
    difficultyRule(difficulty),
  ];
}

function userMessage(input: GenerationInput, maxInputChars: number, words: Wording): string {
  const source = renderSourceText(input.notes, maxInputChars, input.documents);
  const name = words.material.charAt(0).toUpperCase() + words.material.slice(1);
  const heading = source.excerpted ? `${name} (too long to send whole: evenly spaced passages of them):` : `${name}:`;
  return `Course: ${input.courseName}\nDifficulty: ${input.difficulty}\n\n${heading}\n\n${source.text}`;
}

function messages(rules: (words: Wording) => string[], input: GenerationInput, maxInputChars: number): ChatMessage[] {
  const words = wording(input);
  return [
    { role: "system", content: [...rules(words), ...focusRules(input, words), ...commonRules(input, words)].join("\n") },
    { role: "user", content: userMessage(input, maxInputChars, words) },
  ];
}

export function flashcardMessages(input: GenerationInput & { cardCount: number }, maxInputChars: number): ChatMessage[] {
  return messages((words) => flashcardRules(input.cardCount, input.difficulty, words), input, maxInputChars);
}

export function quizMessages(input: GenerationInput & { questionCount: number }, maxInputChars: number): ChatMessage[] {
  return messages((words) => quizRules(input.questionCount, input.difficulty, words), input, maxInputChars);
}

export function studyGuideMessages(input: GenerationInput, maxInputChars: number): ChatMessage[] {
  return messages((words) => studyGuideRules(input.difficulty, words), input, maxInputChars);
}
