import { z } from "zod";
import { QUESTION_TYPES } from "../../../domain/study-material";
import type { Citation } from "./source-text";

/**
 * The JSON the model must answer with, one schema per material. Each is sent as the strict structured-output
 * schema and parses the answer, so what the model is told and what is accepted cannot drift apart. Strict mode
 * wants every property required and no extra ones: the schemas use nullable fields, never optional ones.
 */

const noteSourceFields = {
  sourceNoteId: z.string().nullable().describe("The note id from the tag of the passage this is based on, e.g. [note <id>, t=…]"),
  sourceStartTime: z.number().nullable().describe("The t= value of that passage, in seconds; null when its tag has no t="),
};

const documentSourceFields = {
  sourceDocumentId: z.string().nullable().describe("The document id from the tag of the passage this is based on, e.g. [document <id>, p=…]"),
  // A number, as times are: an integer's bounds are not sure to pass strict mode. SourceIndex keeps only real pages.
  sourcePage: z.number().nullable().describe("The p= value of that passage: the page it is on"),
};

/** Which kinds of source a request has: the answer cites those (a notes-only request's schema is the original one). */
export interface SourceKinds {
  notes: boolean;
  documents: boolean;
}

/** The citation fields of each item: the notes' (note id and time), the documents' (document id and page), or both. */
type SourceShape = typeof noteSourceFields | typeof documentSourceFields | (typeof noteSourceFields & typeof documentSourceFields);

const flashcardSetSchema = <S extends SourceShape>(sourceFields: S) =>
  z.object({
    title: z.string(),
    description: z.string(),
    cards: z.array(
      z.object({
        front: z.string().describe("A question, term or prompt"),
        back: z.string().describe("The answer, definition or explanation"),
        ...sourceFields,
      }),
    ),
  });

const quizSchema = <S extends SourceShape>(sourceFields: S, material: string) =>
  z.object({
    title: z.string(),
    description: z.string(),
    questions: z.array(
      z.object({
        question: z.string(),
        type: z.enum(QUESTION_TYPES),
        options: z.array(z.string()).describe('multiple_choice: four distinct options; true_false: exactly ["True", "False"]'),
        correctAnswer: z.string().describe("One of the options, copied verbatim"),
        explanation: z.string().describe(`Why the answer is correct, from the ${material}`),
        ...sourceFields,
      }),
    ),
  });

const studyGuideSchema = <S extends SourceShape>(sourceFields: S) =>
  z.object({
    title: z.string(),
    description: z.string(),
    overview: z.string(),
    keyTerms: z.array(z.string()),
    learningObjectives: z.array(z.string()),
    studyTips: z.array(z.string()),
    sections: z.array(
      z.object({
        title: z.string(),
        content: z.string().describe("Markdown"),
        subsections: z.array(z.object({ title: z.string(), content: z.string().describe("Markdown") })),
        ...sourceFields,
      }),
    ),
  });

/** The schemas of a request from notes. */
export const flashcardSetAnswerSchema = flashcardSetSchema(noteSourceFields);
export const quizAnswerSchema = quizSchema(noteSourceFields, "notes");
export const studyGuideAnswerSchema = studyGuideSchema(noteSourceFields);

type Cited<T> = Omit<T, keyof typeof noteSourceFields> & Citation;
/** An answer as the generator reads it, whichever sources it cites. */
export type FlashcardSetAnswer = Omit<z.infer<typeof flashcardSetAnswerSchema>, "cards"> & {
  cards: Cited<z.infer<typeof flashcardSetAnswerSchema>["cards"][number]>[];
};
export type QuizAnswer = Omit<z.infer<typeof quizAnswerSchema>, "questions"> & {
  questions: Cited<z.infer<typeof quizAnswerSchema>["questions"][number]>[];
};
export type StudyGuideAnswer = Omit<z.infer<typeof studyGuideAnswerSchema>, "sections"> & {
  sections: Cited<z.infer<typeof studyGuideAnswerSchema>["sections"][number]>[];
};

const bothSourceFields = { ...noteSourceFields, ...documentSourceFields };

/** The flashcard schema for the request's sources: the original one for notes only. */
export function flashcardSetAnswerSchemaFor(sources: SourceKinds): z.ZodType<FlashcardSetAnswer> {
  if (!sources.documents) return flashcardSetAnswerSchema;
  return sources.notes ? flashcardSetSchema(bothSourceFields) : flashcardSetSchema(documentSourceFields);
}

export function quizAnswerSchemaFor(sources: SourceKinds): z.ZodType<QuizAnswer> {
  if (!sources.documents) return quizAnswerSchema;
  return sources.notes ? quizSchema(bothSourceFields, "notes and documents") : quizSchema(documentSourceFields, "documents");
}

export function studyGuideAnswerSchemaFor(sources: SourceKinds): z.ZodType<StudyGuideAnswer> {
  if (!sources.documents) return studyGuideAnswerSchema;
  return sources.notes ? studyGuideSchema(bothSourceFields) : studyGuideSchema(documentSourceFields);
}

/**
 * A zod schema as the JSON schema of a strict structured output. zod's output-mode conversion already lists every
 * property as required and closes objects with `additionalProperties: false`; the `$schema` keyword is dropped,
 * being outside the subset strict mode (and compatible servers) accept.
 */
export function strictJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const jsonSchema: Record<string, unknown> = z.toJSONSchema(schema);
  delete jsonSchema.$schema;
  return jsonSchema;
}
