import type { media as api } from "@study/contracts";
import { required } from "@study/platform";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, messageEnvelope, route, type RouteSpec } from "../http/api";
import { idParams } from "../http/params";
import { sendData, sendMessage } from "../http/envelope";
import { courseJson, coursesById } from "./shared/mappers";
import { noteDetailSchema, noteJson, noteSchema, userNoteContentType } from "./shared/media-json";

/** Notes are fetched from the media service in pages of this size: each gRPC answer stays far below 4 MB. */
export const NOTES_PAGE_SIZE = 25;

/** Characters, not UTF-16 units (as the media service counts them). */
const characters = (max: number) => (value: string) => [...value].length <= max;

const userNoteBody = z.strictObject({
  timestamp: z.number("must be a number of seconds >= 0").min(0, "must be a number of seconds >= 0").describe("Seconds from the start of the audio"),
  content: z.string().trim().min(1, "must not be empty").refine(characters(1000), "must be at most 1000 characters"),
  contentType: z.enum(userNoteContentType.names, { message: `must be one of ${userNoteContentType.names.join(", ")}` }),
});
const userNotesBody = z.strictObject({ userNotes: z.array(userNoteBody).max(1000, "must have at most 1000 entries") });
const renameBody = z.strictObject({
  title: z.string().trim().min(1, "must not be empty").refine(characters(255), "must be at most 255 characters"),
});
const courseParams = z.object({ courseId: z.string().min(1).max(100) });

/**
 * Every note of the user (of one course when given), newest first, read page by page. A note created or
 * deleted while paging may shift a page; ids already seen are skipped.
 */
async function allNotes(clients: ServiceClients, userId: string, courseId?: string): Promise<api.Note[]> {
  const notes: api.Note[] = [];
  const seen = new Set<string>();
  for (let offset = 0; ;) {
    const { notes: page, page: info } = await clients.media.listNotes({ userId, courseId, page: { limit: NOTES_PAGE_SIZE, offset } });
    for (const note of page) {
      if (seen.has(note.id)) continue;
      seen.add(note.id);
      notes.push(note);
    }
    if (!info?.hasMore || page.length === 0) return notes;
    offset += page.length;
  }
}

const noteNotFound = { description: "No such note of the caller (NOT_FOUND)", schema: errorEnvelope };
const tag = "Notes";

export function noteRoutes(clients: ServiceClients): RouteSpec[] {
  /** The note as PUT and PATCH answer it: with user notes and the course, without the transcript's segments. */
  async function editedNote(userId: string, note: api.Note) {
    const courses = await coursesById(clients, userId, [note.courseId]);
    return noteJson(note, courseJson(courses.get(note.courseId)));
  }

  return [
    route({
      method: "get",
      path: "/api/notes",
      tag,
      summary: "List the caller's notes, newest first, each with its course",
      auth: true,
      responses: { 200: { description: "Every note of the caller", schema: dataEnvelope(z.array(noteSchema)) } },
      async handler({ userId, res }) {
        const notes = await allNotes(clients, userId);
        const courses = await coursesById(
          clients,
          userId,
          notes.map((note) => note.courseId),
        );
        sendData(
          res,
          200,
          notes.map((note) => noteJson(note, courseJson(courses.get(note.courseId)))),
          "Notes retrieved",
        );
      },
    }),
    route({
      method: "get",
      path: "/api/courses/:courseId/notes",
      tag,
      summary: "List the notes of one of the caller's courses, newest first",
      auth: true,
      params: courseParams,
      responses: {
        200: { description: "The course's notes", schema: dataEnvelope(z.array(noteSchema)) },
        404: { description: "No such course of the caller (NOT_FOUND)", schema: errorEnvelope },
      },
      async handler({ userId, params, res }) {
        const { course } = await clients.courses.checkCourseOwnership({ userId, courseId: params.courseId });
        const notes = await allNotes(clients, userId, params.courseId);
        sendData(
          res,
          200,
          notes.map((note) => noteJson(note, courseJson(course))),
          "Notes retrieved",
        );
      },
    }),
    route({
      method: "get",
      path: "/api/notes/:id",
      tag,
      summary: "Get a note with its transcript segments, user notes and course",
      auth: true,
      params: idParams,
      responses: { 200: { description: "The note", schema: dataEnvelope(noteDetailSchema) }, 404: noteNotFound },
      async handler({ userId, params, res }) {
        const note = required((await clients.media.getNote({ userId, noteId: params.id })).note, "note in GetNote reply");
        const courses = await coursesById(clients, userId, [note.courseId]);
        sendData(res, 200, noteJson(note, courseJson(courses.get(note.courseId), true), { segments: true }), "Note retrieved");
      },
    }),
    route({
      method: "put",
      path: "/api/notes/:id/user-notes",
      tag,
      summary: "Replace the note's timestamped user notes (stored sorted by timestamp)",
      auth: true,
      params: idParams,
      body: userNotesBody,
      responses: { 200: { description: "The note with its user notes", schema: dataEnvelope(noteSchema) }, 404: noteNotFound },
      async handler({ userId, params, body, res }) {
        const { note } = await clients.media.updateUserNotes({
          userId,
          noteId: params.id,
          userNotes: body.userNotes.map((entry) => ({
            timestamp: entry.timestamp,
            content: entry.content,
            contentType: userNoteContentType.toProto(entry.contentType),
          })),
        });
        sendData(res, 200, await editedNote(userId, required(note, "note in UpdateUserNotes reply")), "User notes updated");
      },
    }),
    route({
      method: "patch",
      path: "/api/notes/:id",
      tag,
      summary: "Rename a note",
      auth: true,
      params: idParams,
      body: renameBody,
      responses: { 200: { description: "The renamed note", schema: dataEnvelope(noteSchema) }, 404: noteNotFound },
      async handler({ userId, params, body, res }) {
        const { note } = await clients.media.renameNote({ userId, noteId: params.id, title: body.title });
        sendData(res, 200, await editedNote(userId, required(note, "note in RenameNote reply")), "Note updated");
      },
    }),
    route({
      method: "delete",
      path: "/api/notes/:id",
      tag,
      summary: "Delete a note with its transcript, user notes and attachments (an import still running is cancelled)",
      auth: true,
      params: idParams,
      responses: { 200: { description: "Deleted", schema: messageEnvelope }, 404: noteNotFound },
      async handler({ userId, params, res }) {
        await clients.media.deleteNote({ userId, noteId: params.id });
        sendMessage(res, "Note deleted");
      },
    }),
  ];
}
