import type { ImportJob, JobStatus } from "../../src/domain/import-job";
import type { Note, TranscriptionStatus } from "../../src/domain/note";

export const at = new Date("2026-03-01T12:00:00Z");
export const later = new Date("2026-03-01T12:05:00Z");

export function aJob(status: JobStatus = "PENDING", changes: Partial<ImportJob> = {}): ImportJob {
  return {
    id: "0190f5c2-0000-7000-8000-000000000001",
    userId: "alice",
    noteId: "0190f5c2-0000-7000-8000-000000000002",
    type: "VIDEO_IMPORT",
    source: "VIDEO",
    title: "Lecture 1",
    status,
    progress: 0,
    stage: null,
    errorMessage: null,
    attempts: 0,
    version: 3,
    sourceUrl: "https://video.example.com/watch?v=1",
    storageKey: null,
    speedMultiplier: 2,
    mimeType: null,
    originalFilename: null,
    fileSize: null,
    createdAt: at,
    updatedAt: at,
    startedAt: null,
    completedAt: null,
    ...changes,
  };
}

export function aNote(status: TranscriptionStatus = "PENDING", changes: Partial<Note> = {}): Note {
  return {
    id: "0190f5c2-0000-7000-8000-000000000002",
    userId: "alice",
    courseId: "0190f5c2-0000-7000-8000-000000000003",
    title: "Lecture 1",
    content: null,
    summary: null,
    audioUrl: null,
    audioStorageKey: null,
    transcriptionStatus: status,
    metadata: { source: "video", originalUrl: "https://video.example.com/watch?v=1" },
    userNotes: [],
    createdAt: at,
    updatedAt: at,
    ...changes,
  };
}
