import type { study as api } from "@study/contracts";
import { required } from "@study/platform";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, messageEnvelope, route, type RouteSpec } from "../http/api";
import { sendData, sendMessage, withShortfall } from "../http/envelope";
import { idParams } from "../http/params";
import {
  embedder,
  embeds,
  generationFields,
  generationRequest,
  listQuery,
  materialFields,
  materialJson,
  noteParams,
  requireNote,
  sourceJson,
  sourceSchema,
} from "./study-material";

const generateBody = z.strictObject({
  ...generationFields,
  questionCount: z
    .number("must be a number")
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(50, "must be at most 50")
    .optional()
    .describe("Default 10"),
});
const validateBody = z.strictObject({
  // The spec answers 400 for an invalid quiz id (quiz ids are UUIDs); a well-formed unknown one is 404.
  quizId: z.string("is required").trim().min(1, "is required").pipe(z.uuid("must be a quiz id (UUID)")),
  responses: z
    .array(
      z.strictObject({
        questionId: z.string("is required").trim().min(1, "is required").max(100),
        answer: z.string("is required and must be a string").max(1000, "must be at most 1000 characters"),
      }),
      "must be an array of {questionId, answer}",
    )
    .max(500, "must have at most 500 entries"),
});

const questionSchema = z
  .object({
    id: z.string(),
    question: z.string(),
    type: z.enum(["multiple_choice", "true_false", "short_answer"]),
    options: z.array(z.string()),
    correctAnswer: z.string(),
    explanation: z.string().nullable(),
    order: z.number().int(),
    quizId: z.string(),
    source: sourceSchema,
  })
  .meta({ id: "Question" });
const quizSchema = z.object({ ...materialFields, questions: z.array(questionSchema), ...embeds }).meta({ id: "Quiz" });
const generatedSchema = z.object({ quiz: z.object(materialFields).meta({ id: "QuizSummary" }), questions: z.array(questionSchema) });
const resultSchema = z.object({
  questionId: z.string(),
  userAnswer: z.string().nullable().describe("null when not answered"),
  correctAnswer: z.string(),
  isCorrect: z.boolean(),
  explanation: z.string().nullable(),
});
const scoreSchema = z
  .object({
    quizId: z.string(),
    attemptId: z.string(),
    totalQuestions: z.number().int(),
    correctAnswers: z.number().int(),
    score: z.number().int().describe("Correct answers (unanswered questions count as wrong)"),
    percentage: z.number().describe("correctAnswers / totalQuestions × 100, two decimals"),
    results: z.array(resultSchema),
    submittedAt: z.iso.datetime(),
  })
  .meta({ id: "QuizScore" });
const quizNotFound = { description: "No such quiz of the caller (NOT_FOUND)", schema: errorEnvelope };

const questionJson = (question: api.Question) => ({
  id: question.id,
  question: question.question,
  type: question.type,
  options: question.options,
  correctAnswer: question.correctAnswer,
  explanation: question.explanation ?? null,
  order: question.order,
  quizId: question.quizId,
  source: sourceJson(question.source),
});

const attemptJson = (attempt: api.QuizAttempt) => ({
  quizId: attempt.quizId,
  attemptId: attempt.id,
  totalQuestions: attempt.totalQuestions,
  correctAnswers: attempt.correctAnswers,
  score: attempt.correctAnswers,
  percentage: attempt.percentage,
  results: attempt.results.map((result) => ({
    questionId: result.questionId,
    userAnswer: result.userAnswer ?? null,
    correctAnswer: result.correctAnswer,
    isCorrect: result.isCorrect,
    explanation: result.explanation ?? null,
  })),
  submittedAt: attempt.submittedAt,
});

const tag = "Quizzes";

export function quizRoutes(clients: ServiceClients, options: { generationDeadlineMs: number }): RouteSpec[] {
  async function quizzesJson(userId: string, quizzes: api.Quiz[]) {
    const embed = await embedder(clients, userId, quizzes);
    return quizzes.map((quiz) => ({ ...materialJson(quiz), questions: quiz.questions.map(questionJson), ...embed(quiz) }));
  }

  return [
    route({
      method: "get",
      path: "/api/quizzes",
      tag,
      summary: "List the caller's quizzes (with their questions), newest first",
      auth: true,
      query: listQuery,
      responses: { 200: { description: "The quizzes", schema: dataEnvelope(z.array(quizSchema)) } },
      async handler({ userId, query, res }) {
        const { quizzes } = await clients.study.listQuizzes({ userId, courseId: query.courseId });
        sendData(res, 200, await quizzesJson(userId, quizzes), "Quizzes retrieved");
      },
    }),
    route({
      method: "post",
      path: "/api/quizzes/generate",
      tag,
      summary: "Generate a quiz (multiple-choice and true/false) from transcribed notes of a course",
      auth: true,
      body: generateBody,
      responses: {
        201: {
          description: "The quiz and its questions (new, or the existing one for the same note content)",
          schema: dataEnvelope(generatedSchema),
        },
        404: { description: "No such course or note of the caller (NOT_FOUND)", schema: errorEnvelope },
        400: {
          description: "Invalid input (VALIDATION_ERROR with details), or the notes hold too little text to generate from (NOT_ENOUGH_CONTENT)",
          schema: errorEnvelope,
        },
        409: { description: "A note is not transcribed yet (NOTE_NOT_TRANSCRIBED)", schema: errorEnvelope },
      },
      async handler({ userId, body, res }) {
        const generation = generationRequest(userId, body);
        const generated = await clients.study.generateQuiz(
          { generation, questionCount: body.questionCount ?? 0 },
          { deadlineMs: options.generationDeadlineMs },
        );
        const quiz = required(generated.quiz, "quiz in GenerateQuiz reply");
        sendData(
          res,
          201,
          { quiz: materialJson(quiz), questions: quiz.questions.map(questionJson) },
          generated.created
            ? withShortfall("Quiz generated", generated.shortfall)
            : "A quiz for these notes already existed; returned the existing quiz",
        );
      },
    }),
    route({
      method: "post",
      path: "/api/quizzes/validate",
      tag,
      summary: "Score answers to a quiz (trimmed, case-insensitive) and keep the attempt",
      auth: true,
      body: validateBody,
      responses: {
        200: { description: "The score and each question's result", schema: dataEnvelope(scoreSchema) },
        404: quizNotFound,
      },
      async handler({ userId, body, res }) {
        const { attempt } = await clients.study.submitQuizAnswers({ userId, quizId: body.quizId, responses: body.responses });
        sendData(res, 200, attemptJson(required(attempt, "attempt in SubmitQuizAnswers reply")), "Quiz scored");
      },
    }),
    route({
      method: "get",
      path: "/api/quizzes/:id/attempts",
      tag,
      summary: "The caller's scored attempts at a quiz, newest first",
      auth: true,
      params: idParams,
      responses: { 200: { description: "The attempts", schema: dataEnvelope(z.array(scoreSchema)) }, 404: quizNotFound },
      async handler({ userId, params, res }) {
        const { attempts } = await clients.study.listQuizAttempts({ userId, quizId: params.id });
        sendData(res, 200, attempts.map(attemptJson), "Quiz attempts retrieved");
      },
    }),
    route({
      method: "get",
      path: "/api/quizzes/:id",
      tag,
      summary: "Get a quiz with its questions, course and note",
      auth: true,
      params: idParams,
      responses: { 200: { description: "The quiz", schema: dataEnvelope(quizSchema) }, 404: quizNotFound },
      async handler({ userId, params, res }) {
        const { quiz } = await clients.study.getQuiz({ userId, quizId: params.id });
        const [json] = await quizzesJson(userId, [required(quiz, "quiz in GetQuiz reply")]);
        sendData(res, 200, json, "Quiz retrieved");
      },
    }),
    route({
      method: "delete",
      path: "/api/quizzes/:id",
      tag,
      summary: "Delete a quiz with its questions and attempts",
      auth: true,
      params: idParams,
      responses: { 200: { description: "Deleted", schema: messageEnvelope }, 404: quizNotFound },
      async handler({ userId, params, res }) {
        await clients.study.deleteQuiz({ userId, quizId: params.id });
        sendMessage(res, "Quiz deleted");
      },
    }),
    route({
      method: "get",
      path: "/api/notes/:noteId/quizzes",
      tag,
      summary: "The quizzes generated from one of the caller's notes",
      auth: true,
      params: noteParams,
      responses: {
        200: { description: "The quizzes with their questions", schema: dataEnvelope(z.array(quizSchema)) },
        404: { description: "No such note of the caller (NOT_FOUND)", schema: errorEnvelope },
      },
      async handler({ userId, params, res }) {
        await requireNote(clients, userId, params.noteId);
        const { quizzes } = await clients.study.listQuizzes({ userId, noteId: params.noteId });
        sendData(res, 200, await quizzesJson(userId, quizzes), "Quizzes retrieved");
      },
    }),
  ];
}
