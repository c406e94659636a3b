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

const COMMON_RULES = [
  "Use only information from the notes, and write in the notes' language.",
  "Transcripts come from speech recognition and may contain misheard words; follow the evident meaning.",
  "Every passage of the notes starts with a tag such as [note <id>, t=<seconds>]. Cite the passage each item is based on:",
  "sourceNoteId is the note id from its tag, sourceStartTime its t= value, or null when the tag has no t= (an untimed transcript).",
];

function difficultyRule(difficulty: Difficulty): string {
  return `Difficulty ${DIFFICULTY_MEANING[difficulty]}`;
}

function flashcardRules(cardCount: number, difficulty: Difficulty): string[] {
  return [
    "You write flashcards for a student revising lecture notes.",
    `Write exactly ${cardCount} flashcards (fewer only if the notes do not hold that many distinct facts), each on a different point.`,
    "front: a question, term or prompt; back: its answer, short and self-contained.",
    "title: a short title for the set; description: one sentence on what it covers.",
    difficultyRule(difficulty),
  ];
}

function quizRules(questionCount: number, difficulty: Difficulty): string[] {
  const [yes, no] = TRUE_FALSE_OPTIONS;
  return [
    "You write quiz questions for a student revising lecture notes.",
    `Write exactly ${questionCount} questions (fewer only if the notes do not hold that many distinct facts), each on a different point; mostly multiple_choice, some true_false.`,
    "A multiple_choice question has exactly four distinct options, one of them correct and three plausible but wrong.",
    `A true_false question has exactly the options ["${yes}", "${no}"], in this order.`,
    "correctAnswer is one of the options, copied verbatim. explanation says why it is correct, from the notes.",
    "title: a short title for the quiz; description: one sentence on what it covers.",
    difficultyRule(difficulty),
  ];
}

function studyGuideRules(difficulty: Difficulty): string[] {
  return [
    "You write a study guide for a student revising lecture notes.",
    "title: a short title; description: one sentence on what it covers; overview: one paragraph summarising the material.",
    "keyTerms: the important terms and concepts, each a short phrase. learningObjectives: what the student should be able to do afterwards, each starting with a verb. studyTips: practical advice for revising this material.",
    "sections: the topics of the notes in their order, each with a title and Markdown content (paragraphs, bullet lists, **bold** key terms; no heading for the section itself); subsections go deeper into a part of a topic, or are an empty list.",
    difficultyRule(difficulty),
  ];
}

function userMessage(input: GenerationInput, maxInputChars: number): string {
  const source = renderSourceText(input.notes, maxInputChars);
  const notesHeading = source.excerpted ? "Notes (too long to send whole: evenly spaced passages of them):" : "Notes:";
  return `Course: ${input.courseName}\nDifficulty: ${input.difficulty}\n\n${notesHeading}\n\n${source.text}`;
}

function messages(rules: string[], input: GenerationInput, maxInputChars: number): ChatMessage[] {
  return [
    { role: "system", content: [...rules, ...COMMON_RULES].join("\n") },
    { role: "user", content: userMessage(input, maxInputChars) },
  ];
}

export function flashcardMessages(input: GenerationInput & { cardCount: number }, maxInputChars: number): ChatMessage[] {
  return messages(flashcardRules(input.cardCount, input.difficulty), input, maxInputChars);
}

export function quizMessages(input: GenerationInput & { questionCount: number }, maxInputChars: number): ChatMessage[] {
  return messages(quizRules(input.questionCount, input.difficulty), input, maxInputChars);
}

export function studyGuideMessages(input: GenerationInput, maxInputChars: number): ChatMessage[] {
  return messages(studyGuideRules(input.difficulty), input, maxInputChars);
}
