import { study as api } from "@study/contracts";
import { required } from "@study/platform";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, messageEnvelope, route, type RouteSpec } from "../http/api";
import { sendData, sendMessage, withShortfall } from "../http/envelope";
import { idParams } from "../http/params";
import { MAX_INT32 } from "../http/query";
import { coursesById, restEnum } from "./shared/mappers";
import {
  embedder,
  embeds,
  generationFields,
  generationRequest,
  materialFields,
  materialJson,
  noteParams,
  requireNote,
  sourceJson,
  sourceSchema,
} from "./study-material";

const reviewRating = restEnum(api.ReviewRating, "REVIEW_RATING", "lower");
const exportFormat = restEnum(api.ExportFormat, "EXPORT_FORMAT", "lower");
const cardState = restEnum(api.CardState, "CARD_STATE");

const generateBody = z.strictObject({
  ...generationFields,
  cardCount: z
    .number("must be a number")
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(50, "must be at most 50")
    .optional()
    .describe("Default 10"),
});
const listQuery = z.object({
  courseId: z.string().trim().min(1).max(100).optional().describe("Only this course's sets"),
  flashcardSetId: z.string().trim().min(1).max(100).optional().describe("Only this set"),
});
const dueQuery = z.object({
  courseId: z.string().trim().min(1).max(100).optional(),
  flashcardSetId: z.string().trim().min(1).max(100).optional(),
  // Bounded by the wire type (int32) only: the study service owns the 1-500 rule and the default.
  limit: z.coerce
    .number()
    .int()
    .min(-MAX_INT32 - 1)
    .max(MAX_INT32)
    .optional()
    .describe("How many cards at most: 1-500, default 50 (else 400 VALIDATION_ERROR)"),
});
const cardParams = z.object({ setId: z.string().min(1).max(100), cardId: z.string().min(1).max(100) });
const reviewBody = z.strictObject({ rating: z.enum(reviewRating.names, { message: `must be one of ${reviewRating.names.join(", ")}` }) });
const exportQuery = z.object({ format: z.enum(exportFormat.names, { message: "must be csv or apkg" }).default("csv") });

const scheduleSchema = z
  .object({
    state: z.enum(cardState.names),
    due: z.iso.datetime(),
    stability: z.number(),
    difficulty: z.number(),
    scheduledDays: z.number().int(),
    reps: z.number().int(),
    lapses: z.number().int(),
    lastReview: z.iso.datetime().nullable(),
  })
  .meta({ id: "CardSchedule", description: "FSRS spaced-repetition state" });
const ratingDatesSchema = z.object({ again: z.iso.datetime(), hard: z.iso.datetime(), good: z.iso.datetime(), easy: z.iso.datetime() });
const flashcardSchema = z
  .object({
    id: z.string(),
    front: z.string(),
    back: z.string(),
    order: z.number().int(),
    flashcardSetId: z.string(),
    source: sourceSchema,
    schedule: scheduleSchema,
  })
  .meta({ id: "Flashcard" });
const setFields = { ...materialFields, cardCount: z.number().int() };
const setSchema = z.object({ ...setFields, flashcards: z.array(flashcardSchema), ...embeds }).meta({ id: "FlashcardSet" });
const generatedSchema = z.object({ flashcardSet: z.object(setFields).meta({ id: "FlashcardSetSummary" }), flashcards: z.array(flashcardSchema) });
const setNotFound = { description: "No such flashcard set of the caller (NOT_FOUND)", schema: errorEnvelope };

export function flashcardJson(card: api.Flashcard) {
  const schedule = required(card.schedule, "schedule of a flashcard");
  return {
    id: card.id,
    front: card.front,
    back: card.back,
    order: card.order,
    flashcardSetId: card.flashcardSetId,
    source: sourceJson(card.source),
    schedule: {
      state: cardState.toRest(schedule.state),
      due: schedule.due,
      stability: schedule.stability,
      difficulty: schedule.difficulty,
      scheduledDays: schedule.scheduledDays,
      reps: schedule.reps,
      lapses: schedule.lapses,
      lastReview: schedule.lastReview ?? null,
    },
  };
}

const setSummaryJson = (set: api.FlashcardSet) => ({ ...materialJson(set), cardCount: set.cardCount });

const tag = "Flashcards";

export function flashcardRoutes(clients: ServiceClients, options: { generationDeadlineMs: number }): RouteSpec[] {
  async function setsJson(userId: string, sets: api.FlashcardSet[]) {
    const embed = await embedder(clients, userId, sets);
    return sets.map((set) => ({ ...setSummaryJson(set), flashcards: set.flashcards.map(flashcardJson), ...embed(set) }));
  }

  return [
    route({
      method: "get",
      path: "/api/flashcards",
      tag,
      summary: "List the caller's flashcard sets (with their cards), newest first",
      auth: true,
      query: listQuery,
      responses: { 200: { description: "The sets", schema: dataEnvelope(z.array(setSchema)) } },
      async handler({ userId, query, res }) {
        const { flashcardSets } = await clients.study.listFlashcardSets({ userId, courseId: query.courseId, flashcardSetId: query.flashcardSetId });
        sendData(res, 200, await setsJson(userId, flashcardSets), "Flashcard sets retrieved");
      },
    }),
    route({
      method: "post",
      path: "/api/flashcards/generate",
      tag,
      summary: "Generate a flashcard set from transcribed notes of a course (the same note content returns the existing set)",
      auth: true,
      body: generateBody,
      responses: {
        201: { description: "The set and its cards (new, or the existing one for the same note content)", schema: dataEnvelope(generatedSchema) },
        404: { description: "No such course or note of the caller (NOT_FOUND)", schema: errorEnvelope },
        400: {
          description: "Invalid input (VALIDATION_ERROR with details), or the notes hold too little text to generate from (NOT_ENOUGH_CONTENT)",
          schema: errorEnvelope,
        },
        409: { description: "A note is not transcribed yet (NOTE_NOT_TRANSCRIBED)", schema: errorEnvelope },
      },
      async handler({ userId, body, res }) {
        const generation = generationRequest(userId, body);
        const generated = await clients.study.generateFlashcards(
          { generation, cardCount: body.cardCount ?? 0 },
          { deadlineMs: options.generationDeadlineMs },
        );
        const flashcardSet = required(generated.flashcardSet, "flashcard set in GenerateFlashcards reply");
        sendData(
          res,
          201,
          { flashcardSet: setSummaryJson(flashcardSet), flashcards: flashcardSet.flashcards.map(flashcardJson) },
          generated.created
            ? withShortfall("Flashcards generated", generated.shortfall)
            : "Flashcards for these notes already existed; returned the existing set",
        );
      },
    }),
    route({
      method: "get",
      path: "/api/flashcards/review/due",
      tag,
      summary: "Cards due for review now (spaced repetition), soonest first",
      auth: true,
      query: dueQuery,
      responses: {
        200: {
          description: "Due cards and how many are due in all",
          schema: dataEnvelope(
            z.object({
              cards: z.array(
                flashcardSchema.extend({
                  courseId: z.string(),
                  flashcardSetTitle: z.string(),
                  nextDueByRating: ratingDatesSchema.describe("When the card would be due after each rating given now (labels for the buttons)"),
                }),
              ),
              totalDue: z.number().int(),
            }),
          ),
        },
      },
      async handler({ userId, query, res }) {
        const due = await clients.study.listDueCards({ userId, courseId: query.courseId, flashcardSetId: query.flashcardSetId, limit: query.limit });
        sendData(
          res,
          200,
          {
            cards: due.cards.map((entry) => ({
              ...flashcardJson(required(entry.flashcard, "flashcard in ListDueCards reply")),
              courseId: entry.courseId,
              flashcardSetTitle: entry.flashcardSetTitle,
              nextDueByRating: Object.fromEntries(reviewRating.names.map((rating, index) => [rating, entry.nextDueByRating[index]])),
            })),
            totalDue: due.totalDue,
          },
          "Due cards retrieved",
        );
      },
    }),
    route({
      method: "post",
      path: "/api/flashcards/:setId/cards/:cardId/review",
      tag,
      summary: "Record a review of a card (FSRS) and get its next due date",
      auth: true,
      params: cardParams,
      body: reviewBody,
      responses: {
        200: {
          description: "The card with its new schedule; nextReviewAt is its next due date",
          schema: dataEnvelope(z.object({ flashcard: flashcardSchema, nextReviewAt: z.iso.datetime() })),
        },
        404: { description: "No such card in a set of the caller (NOT_FOUND)", schema: errorEnvelope },
      },
      async handler({ userId, params, body, res }) {
        const { flashcard } = await clients.study.reviewCard({
          userId,
          flashcardSetId: params.setId,
          flashcardId: params.cardId,
          rating: reviewRating.toProto(body.rating),
        });
        const card = flashcardJson(required(flashcard, "flashcard in ReviewCard reply"));
        sendData(res, 200, { flashcard: card, nextReviewAt: card.schedule.due }, "Review recorded");
      },
    }),
    route({
      method: "get",
      path: "/api/flashcards/:id/export",
      tag,
      summary: "Download a flashcard set as CSV or as an Anki package (.apkg)",
      auth: true,
      params: idParams,
      query: exportQuery,
      responses: {
        200: { description: "The file (text/csv or application/octet-stream), as an attachment", contentType: "application/octet-stream" },
        404: setNotFound,
      },
      async handler({ userId, params, query, res }) {
        const { flashcardSet } = await clients.study.getFlashcardSet({ userId, flashcardSetId: params.id });
        const { courseId } = required(flashcardSet, "flashcard set in GetFlashcardSet reply");
        const courses = await coursesById(clients, userId, [courseId]);
        const file = await clients.study.exportFlashcardSet({
          userId,
          flashcardSetId: params.id,
          format: exportFormat.toProto(query.format),
          courseName: courses.get(courseId)?.name ?? "",
        });
        res.status(200);
        res.type(file.contentType);
        res.attachment(file.fileName);
        res.send(Buffer.from(file.content));
      },
    }),
    route({
      method: "get",
      path: "/api/flashcards/:id",
      tag,
      summary: "Get a flashcard set with its cards, course and note",
      auth: true,
      params: idParams,
      responses: { 200: { description: "The set", schema: dataEnvelope(setSchema) }, 404: setNotFound },
      async handler({ userId, params, res }) {
        const { flashcardSet } = await clients.study.getFlashcardSet({ userId, flashcardSetId: params.id });
        const [set] = await setsJson(userId, [required(flashcardSet, "flashcard set in GetFlashcardSet reply")]);
        sendData(res, 200, set, "Flashcard set retrieved");
      },
    }),
    route({
      method: "delete",
      path: "/api/flashcards/:id",
      tag,
      summary: "Delete a flashcard set with its cards and review history",
      auth: true,
      params: idParams,
      responses: { 200: { description: "Deleted", schema: messageEnvelope }, 404: setNotFound },
      async handler({ userId, params, res }) {
        await clients.study.deleteFlashcardSet({ userId, flashcardSetId: params.id });
        sendMessage(res, "Flashcard set deleted");
      },
    }),
    route({
      method: "get",
      path: "/api/notes/:noteId/flashcards",
      tag,
      summary: "The flashcard sets generated from one of the caller's notes",
      auth: true,
      params: noteParams,
      responses: {
        200: { description: "The sets with their cards", schema: dataEnvelope(z.array(setSchema)) },
        404: { description: "No such note of the caller (NOT_FOUND)", schema: errorEnvelope },
      },
      async handler({ userId, params, res }) {
        await requireNote(clients, userId, params.noteId);
        const { flashcardSets } = await clients.study.listFlashcardSets({ userId, noteId: params.noteId });
        sendData(res, 200, await setsJson(userId, flashcardSets), "Flashcard sets retrieved");
      },
    }),
  ];
}
