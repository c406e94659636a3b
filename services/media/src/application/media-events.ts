import { createEvent, type EventEnvelope } from "@study/events/envelope";
import type { ImportJob, ImportType } from "../domain/import-job";
import type { Note, TranscriptSegment } from "../domain/note";
import { toSearchable } from "./searchable";

export const SOURCE = "media";

/** The REST spelling of an import type (video_import, audio_import, audio_upload). */
export const importTypeName = (type: ImportType): string => type.toLowerCase();

/** media.import.requested.v1: the work message the media worker consumes. */
export const importRequested = (job: ImportJob): EventEnvelope =>
  createEvent(SOURCE, job.userId, {
    $case: "importRequested",
    value: {
      jobId: job.id,
      noteId: job.noteId ?? "",
      importType: importTypeName(job.type),
      sourceUrl: job.sourceUrl ?? undefined,
      storageKey: job.storageKey ?? undefined,
      speedMultiplier: job.speedMultiplier,
      mimeType: job.mimeType ?? undefined,
      originalFilename: job.originalFilename ?? undefined,
      fileSize: job.fileSize ?? undefined,
    },
  });

export const noteImportStarted = (note: Note, job: ImportJob): EventEnvelope =>
  createEvent(SOURCE, note.userId, {
    $case: "noteImportStarted",
    value: {
      noteId: note.id,
      jobId: job.id,
      courseId: note.courseId,
      title: note.title,
      importType: importTypeName(job.type),
      searchable: toSearchable(note),
    },
  });

export const noteTranscribed = (note: Note, job: ImportJob, segments: TranscriptSegment[]): EventEnvelope =>
  createEvent(SOURCE, note.userId, {
    $case: "noteTranscribed",
    value: {
      noteId: note.id,
      jobId: job.id,
      courseId: note.courseId,
      title: note.title,
      transcript: note.content ?? "",
      summary: note.summary ?? "",
      segments: segments.map((s) => ({ text: s.text, startTime: s.startTime, endTime: s.endTime, speaker: s.speaker ?? undefined })),
      duration: note.metadata.duration ?? 0,
      language: note.metadata.language ?? "",
      searchable: toSearchable(note),
    },
  });

export const noteImportFailed = (note: Note, job: ImportJob): EventEnvelope =>
  createEvent(SOURCE, note.userId, {
    $case: "noteImportFailed",
    value: {
      noteId: note.id,
      jobId: job.id,
      courseId: note.courseId,
      title: note.title,
      errorMessage: job.errorMessage ?? "",
      searchable: toSearchable(note),
    },
  });

export const noteUpdated = (note: Note): EventEnvelope =>
  createEvent(SOURCE, note.userId, {
    $case: "noteUpdated",
    value: {
      noteId: note.id,
      courseId: note.courseId,
      title: note.title,
      transcriptionStatus: note.transcriptionStatus,
      userNotes: note.userNotes.map((u) => ({ timestamp: u.timestamp, content: u.content, contentType: u.contentType })),
      searchable: toSearchable(note),
    },
  });

export const noteDeleted = (note: Note, storageKeys: string[]): EventEnvelope =>
  createEvent(SOURCE, note.userId, {
    $case: "noteDeleted",
    value: { noteId: note.id, courseId: note.courseId, title: note.title, storageKeys },
  });
