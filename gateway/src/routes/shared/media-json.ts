import { media as api } from "@study/contracts";
import { z } from "zod";
import { courseDetailSchema, courseEmbedSchema, type courseJson, restEnum } from "./mappers";

/*
 * Media's notes and import jobs in REST, as several route files answer them: a note by its own routes and by the
 * imports and uploads that create one, a note's status in jobs and on the dashboard, a job's status in imports and jobs.
 */

export const transcriptionStatus = restEnum(api.TranscriptionStatus, "TRANSCRIPTION_STATUS");
export const userNoteContentType = restEnum(api.UserNoteContentType, "USER_NOTE_CONTENT_TYPE", "lower");
export const jobStatus = restEnum(api.JobStatus, "JOB_STATUS");

const nullableString = z.string().nullable();
const userNoteSchema = z
  .object({ timestamp: z.number(), content: z.string(), contentType: z.enum(userNoteContentType.names) })
  .meta({ id: "UserNote" });
const segmentSchema = z
  .object({ id: z.string(), text: z.string(), startTime: z.number(), endTime: z.number(), speaker: nullableString, noteId: z.string() })
  .meta({ id: "TranscriptSegment" });
const metadataSchema = z
  .object({
    source: z.enum(["video", "audio_url", "upload"]),
    originalUrl: z.string(),
    duration: z.number().describe("Seconds"),
    wordCount: z.number().int(),
    mimeType: z.string(),
    originalFilename: z.string(),
    fileSize: z.number().int().describe("Bytes"),
    language: z.string(),
    confidence: z.number().min(0).max(1),
  })
  .partial()
  .meta({ id: "NoteMetadata", description: "Keys are present when known" });
const noteFields = {
  id: z.string(),
  title: z.string(),
  content: nullableString.describe("The transcript; null until the import completed"),
  courseId: z.string(),
  audioUrl: nullableString,
  transcriptionStatus: z.enum(transcriptionStatus.names),
  metadata: metadataSchema,
  userNotes: z.array(userNoteSchema),
};
const timestamps = { createdAt: z.iso.datetime(), updatedAt: z.iso.datetime(), userId: z.string() };
export const noteSchema = z.object({ ...noteFields, course: courseEmbedSchema.nullable(), ...timestamps }).meta({ id: "Note" });
export const noteDetailSchema = z
  .object({ ...noteFields, transcriptSegments: z.array(segmentSchema), course: courseDetailSchema.nullable(), ...timestamps })
  .meta({ id: "NoteWithTranscript" });

/** The REST shape of a note; transcriptSegments only on the note's own page. */
export function noteJson(note: api.Note, course: ReturnType<typeof courseJson>, options: { segments?: boolean } = {}) {
  return {
    id: note.id,
    title: note.title,
    content: note.content ?? null,
    courseId: note.courseId,
    audioUrl: note.audioUrl ?? null,
    transcriptionStatus: transcriptionStatus.toRest(note.transcriptionStatus),
    metadata: Object.fromEntries(Object.entries(note.metadata ?? {}).filter(([, value]) => value !== undefined)),
    userNotes: note.userNotes.map((entry) => ({
      timestamp: entry.timestamp,
      content: entry.content,
      contentType: userNoteContentType.toRest(entry.contentType),
    })),
    ...(options.segments
      ? {
          transcriptSegments: note.transcriptSegments.map((segment) => ({
            id: segment.id,
            text: segment.text,
            startTime: segment.startTime,
            endTime: segment.endTime,
            speaker: segment.speaker ?? null,
            noteId: segment.noteId,
          })),
        }
      : {}),
    course,
    createdAt: note.createdAt,
    updatedAt: note.updatedAt,
    userId: note.userId,
  };
}
