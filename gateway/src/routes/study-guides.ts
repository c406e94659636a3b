import type { study as api } from "@study/contracts";
import { required } from "@study/platform";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, messageEnvelope, route, type RouteSpec } from "../http/api";
import { sendData, sendMessage } from "../http/envelope";
import { idParams } from "../http/params";
import {
  difficulty,
  difficultySchema,
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

const generateBody = z.strictObject(generationFields);
const getQuery = z.object({
  shape: z
    .enum(["markdown", "structured"], { message: "must be markdown or structured" })
    .default("markdown")
    .describe("markdown: shape A (content is markdown) with the sections too; structured: exactly shape B (content is an object)"),
});

const subsectionSchema = z.object({ title: z.string(), content: z.string() });
const sectionSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    content: z.string(),
    order: z.number().int(),
    subsections: z.array(subsectionSchema),
    studyGuideId: z.string(),
    source: sourceSchema,
  })
  .meta({ id: "StudySection" });
const shapeASchema = z
  .object({ ...materialFields, content: z.string().describe("The whole guide as markdown"), ...embeds })
  .meta({ id: "StudyGuide", description: "Shape A" });
const shapeADetailSchema = shapeASchema.extend({ sections: z.array(sectionSchema) }).meta({ id: "StudyGuideDetail" });
const shapeBSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string().nullable(),
    difficulty: difficultySchema,
    courseId: z.string(),
    content: z.object({
      overview: z.string(),
      keyTerms: z.array(z.string()),
      learningObjectives: z.array(z.string()),
      studyTips: z.array(z.string()),
    }),
    sections: z.array(sectionSchema),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    userId: z.string(),
  })
  .meta({ id: "StructuredStudyGuide", description: "Shape B" });
const guideNotFound = { description: "No such study guide of the caller (NOT_FOUND)", schema: errorEnvelope };

const shapeA = (guide: api.StudyGuide) => ({ ...materialJson(guide), content: guide.markdown });

const sectionJson = (section: api.StudySection) => ({
  id: section.id,
  title: section.title,
  content: section.content,
  order: section.order,
  subsections: section.subsections,
  studyGuideId: section.studyGuideId,
  source: sourceJson(section.source),
});

const shapeB = (guide: api.StudyGuide) => ({
  id: guide.id,
  title: guide.title,
  description: guide.description ?? null,
  difficulty: difficulty.toRest(guide.difficulty),
  courseId: guide.courseId,
  content: {
    overview: guide.overview,
    keyTerms: guide.keyTerms,
    learningObjectives: guide.learningObjectives,
    studyTips: guide.studyTips,
  },
  sections: guide.sections.map(sectionJson),
  createdAt: guide.createdAt,
  updatedAt: guide.updatedAt,
  userId: guide.userId,
});

const tag = "Study guides";

export function studyGuideRoutes(clients: ServiceClients, options: { generationDeadlineMs: number }): RouteSpec[] {
  async function guidesJson(userId: string, guides: api.StudyGuide[]) {
    const embed = await embedder(clients, userId, guides);
    return guides.map((guide) => ({ ...shapeA(guide), ...embed(guide) }));
  }

  return [
    route({
      method: "get",
      path: "/api/study-guides",
      tag,
      summary: "List the caller's study guides (shape A), newest first",
      auth: true,
      query: listQuery,
      responses: { 200: { description: "The study guides", schema: dataEnvelope(z.array(shapeASchema)) } },
      async handler({ userId, query, res }) {
        const { studyGuides } = await clients.study.listStudyGuides({ userId, courseId: query.courseId });
        sendData(res, 200, await guidesJson(userId, studyGuides), "Study guides retrieved");
      },
    }),
    route({
      method: "post",
      path: "/api/study-guides/generate",
      tag,
      summary: "Generate a study guide from transcribed notes of a course (the same note content returns the existing guide)",
      auth: true,
      body: generateBody,
      responses: {
        201: {
          description: "The study guide, shape A (new, or the existing one for the same note content)",
          schema: dataEnvelope(shapeASchema.omit({ course: true, note: true })),
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
        const generated = await clients.study.generateStudyGuide({ generation }, { deadlineMs: options.generationDeadlineMs });
        const studyGuide = required(generated.studyGuide, "study guide in GenerateStudyGuide reply");
        sendData(
          res,
          201,
          shapeA(studyGuide),
          generated.created ? "Study guide generated" : "A study guide for these notes already existed; returned the existing guide",
        );
      },
    }),
    route({
      method: "get",
      path: "/api/study-guides/:id",
      tag,
      summary: "Get a study guide: shape A with course, note and sections (default), or shape B with ?shape=structured",
      auth: true,
      params: idParams,
      query: getQuery,
      responses: { 200: { description: "The study guide", schema: dataEnvelope(z.union([shapeADetailSchema, shapeBSchema])) }, 404: guideNotFound },
      async handler({ userId, params, query, res }) {
        const reply = await clients.study.getStudyGuide({ userId, studyGuideId: params.id });
        const studyGuide = required(reply.studyGuide, "study guide in GetStudyGuide reply");
        if (query.shape === "structured") {
          sendData(res, 200, shapeB(studyGuide), "Study guide retrieved");
          return;
        }
        const [guide] = await guidesJson(userId, [studyGuide]);
        sendData(res, 200, { ...guide, sections: studyGuide.sections.map(sectionJson) }, "Study guide retrieved");
      },
    }),
    route({
      method: "delete",
      path: "/api/study-guides/:id",
      tag,
      summary: "Delete a study guide with its sections",
      auth: true,
      params: idParams,
      responses: { 200: { description: "Deleted", schema: messageEnvelope }, 404: guideNotFound },
      async handler({ userId, params, res }) {
        await clients.study.deleteStudyGuide({ userId, studyGuideId: params.id });
        sendMessage(res, "Study guide deleted");
      },
    }),
    route({
      method: "get",
      path: "/api/notes/:noteId/study-guides",
      tag,
      summary: "The study guides generated from one of the caller's notes (shape A)",
      auth: true,
      params: noteParams,
      responses: {
        200: { description: "The study guides", schema: dataEnvelope(z.array(shapeASchema)) },
        404: { description: "Note not found or access denied (NOT_FOUND)", schema: errorEnvelope },
      },
      async handler({ userId, params, res }) {
        await requireNote(clients, userId, params.noteId);
        const { studyGuides } = await clients.study.listStudyGuides({ userId, noteId: params.noteId });
        sendData(res, 200, await guidesJson(userId, studyGuides), "Study guides retrieved");
      },
    }),
  ];
}
