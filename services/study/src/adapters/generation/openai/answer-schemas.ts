import { z } from "zod";
import { QUESTION_TYPES } from "../../../domain/study-material";

/**
 * The JSON the model must answer with, one schema per material. Each is sent as the strict structured-output
 * schema and parses the answer, so what the model is told and what is accepted cannot drift apart. Strict mode
 * wants every property required and no extra ones: the schemas use nullable fields, never optional ones.
 */

const sourceFields = {
  sourceNoteId: z.string().nullable().describe("The note id from the tag of the passage this is based on, e.g. [note <id>, t=…]"),
  sourceStartTime: z.number().nullable().describe("The t= value of that passage, in seconds; null when its tag has no t="),
};

export const flashcardSetAnswerSchema = z.object({
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

export const quizAnswerSchema = z.object({
  title: z.string(),
  description: z.string(),
  questions: z.array(
    z.object({
      question: z.string(),
      type: z.enum(QUESTION_TYPES),
      options: z.array(z.string()).describe('multiple_choice: four distinct options; true_false: exactly ["True", "False"]'),
      correctAnswer: z.string().describe("One of the options, copied verbatim"),
      explanation: z.string().describe("Why the answer is correct, from the notes"),
      ...sourceFields,
    }),
  ),
});

export const studyGuideAnswerSchema = z.object({
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
