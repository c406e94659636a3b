import { study as api } from "@study/contracts";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { coursesById, restEnum } from "./shared/mappers";

/** Shared by the study guide, quiz and flashcard routes: the generation request and the material's shape. */

/** Most notes one generation reads (the spec leaves it open; documented in docs/api-decisions.md). */
export const MAX_NOTES_PER_GENERATION = 20;

export const difficulty = restEnum(api.Difficulty, "DIFFICULTY");
type DifficultyName = (typeof difficulty.names)[number];
export const difficultySchema = z.enum(difficulty.names, { message: "must be EASY, MEDIUM or HARD" });

/** The fields every generation request has. Note ids are UUIDs: a malformed one is a 400, an unknown one a 404. */
export const generationFields = {
  courseId: z.string("is required").trim().min(1, "is required").max(100),
  noteIds: z
    .array(z.uuid("must be a note id"), "must be an array of note ids")
    .min(1, "must name at least one note")
    .max(MAX_NOTES_PER_GENERATION, `must name at most ${MAX_NOTES_PER_GENERATION} notes`)
    .refine((ids) => new Set(ids).size === ids.length, "must not repeat a note"),
  difficulty: difficultySchema.optional().describe("Level of the generated material; MEDIUM when omitted"),
};

/** A level left out is MEDIUM. */
export const difficultyToProto = (name: DifficultyName | undefined): api.Difficulty => difficulty.toProto(name ?? "MEDIUM");

/**
 * What a generation asks the study service for: ids only. Study reads the course, the notes and their transcripts
 * from their owners as the caller and checks them: another user's or an unknown course or note, or a note of
 * another course, is 404 NOT_FOUND; a note that is not transcribed is 409 NOTE_NOT_TRANSCRIBED.
 */
export function generationRequest(userId: string, body: { courseId: string; noteIds: string[]; difficulty?: DifficultyName }): api.GenerationRequest {
  return { userId, courseId: body.courseId, noteIds: body.noteIds, documentIds: [], difficulty: difficultyToProto(body.difficulty), focusAreas: [] };
}

/** Must be one of the caller's notes (for the note-scoped lists): NOT_FOUND otherwise. */
export async function requireNote(clients: ServiceClients, userId: string, noteId: string): Promise<void> {
  await clients.media.getNote({ userId, noteId });
}

export const courseRefSchema = z.object({ id: z.string(), name: z.string() }).meta({ id: "CourseRef" });
export const noteRefSchema = z.object({ id: z.string(), title: z.string() }).meta({ id: "NoteRef" });
export const sourceSchema = z
  .union([
    z.object({ noteId: z.string(), startTime: z.number().nullable().describe("Seconds: the transcript segment the text came from") }),
    z.object({ documentId: z.string(), page: z.number().int().nullable().describe("The document's page the text came from") }),
  ])
  .nullable()
  .meta({ id: "SourceLink", description: "Where the item came from (a note, or a document); null when unknown or when the source was deleted" });

export const materialFields = {
  id: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  difficulty: difficultySchema,
  courseId: z.string(),
  noteId: z.string().nullable().describe("The first source note; null once it was deleted"),
  noteIds: z.array(z.string()).describe("Every source note still existing"),
  generator: z.string().describe("offline or openai:<model>"),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  userId: z.string(),
};
export const embeds = { course: courseRefSchema.nullable(), note: noteRefSchema.nullable() };

interface MaterialOrigin {
  id: string;
  userId: string;
  courseId: string;
  noteId?: string;
  noteTitle?: string;
  noteIds: string[];
  title: string;
  description?: string;
  difficulty: api.Difficulty;
  generator: string;
  createdAt?: Date;
  updatedAt?: Date;
}

export function materialJson(material: MaterialOrigin) {
  return {
    id: material.id,
    title: material.title,
    description: material.description ?? null,
    difficulty: difficulty.toRest(material.difficulty),
    courseId: material.courseId,
    noteId: material.noteId ?? null,
    noteIds: material.noteIds,
    generator: material.generator,
    createdAt: material.createdAt,
    updatedAt: material.updatedAt,
    userId: material.userId,
  };
}

export function sourceJson(source: api.SourceLink | undefined) {
  if (source?.noteId) return { noteId: source.noteId, startTime: source.startTime ?? null };
  if (source?.documentId) return { documentId: source.documentId, page: source.page ?? null };
  return null;
}

/** The {course, note} references of material, with course names fetched in one batch. */
export async function embedder(clients: ServiceClients, userId: string, materials: MaterialOrigin[]) {
  const courses = await coursesById(
    clients,
    userId,
    materials.map((material) => material.courseId),
  );
  return (material: MaterialOrigin) => {
    const course = courses.get(material.courseId);
    return {
      course: course ? { id: course.id, name: course.name } : null,
      note: material.noteId ? { id: material.noteId, title: material.noteTitle ?? "" } : null,
    };
  };
}

export const listQuery = z.object({ courseId: z.string().trim().min(1).max(100).optional().describe("Only this course's material") });
export const noteParams = z.object({ noteId: z.string().min(1).max(100) });
