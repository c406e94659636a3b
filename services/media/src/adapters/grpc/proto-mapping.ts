import { media as api } from "@study/contracts";
import { required } from "@study/platform/errors";
import type { JobNoteSummary, JobSortField, JobView, SortOrder } from "../../application/ports/import-job-repository.port";
import { IMPORT_TYPES, JOB_SOURCES, JOB_STATUSES, PROGRESS_STAGES, type ImportJob } from "../../domain/import-job";
import { TRANSCRIPTION_STATUSES, USER_NOTE_CONTENT_TYPES, type Note, type NoteDetails, type UserNote } from "../../domain/note";

/**
 * A domain union ↔ proto enum mapping by name: the proto value of `X` is `<PREFIX>_X` (upper-cased).
 * UNSPECIFIED and values this build does not know map to null.
 */
function enumMapping<D extends string, P extends number>(values: readonly D[], prefix: string, protoEnum: object) {
  const byName = protoEnum as Record<string, P>;
  const toProto = new Map(values.map((value) => [value, byName[`${prefix}_${value.toUpperCase()}`]] as const));
  for (const [value, proto] of toProto) if (proto === undefined) throw new Error(`${prefix} has no value for ${value}`);
  const fromProto = new Map([...toProto].map(([value, proto]) => [proto, value] as const));
  return {
    toProto: (value: D): P => required(toProto.get(value), `${prefix} value for ${value}`),
    fromProto: (value: P): D | null => fromProto.get(value) ?? null,
  };
}

export const transcriptionStatus = enumMapping<(typeof TRANSCRIPTION_STATUSES)[number], api.TranscriptionStatus>(
  TRANSCRIPTION_STATUSES,
  "TRANSCRIPTION_STATUS",
  api.TranscriptionStatus,
);
export const jobStatus = enumMapping<(typeof JOB_STATUSES)[number], api.JobStatus>(JOB_STATUSES, "JOB_STATUS", api.JobStatus);
export const importType = enumMapping<(typeof IMPORT_TYPES)[number], api.ImportType>(IMPORT_TYPES, "IMPORT_TYPE", api.ImportType);
export const jobSource = enumMapping<(typeof JOB_SOURCES)[number], api.JobSource>(JOB_SOURCES, "JOB_SOURCE", api.JobSource);
export const progressStage = enumMapping<(typeof PROGRESS_STAGES)[number], api.ProgressStage>(PROGRESS_STAGES, "PROGRESS_STAGE", api.ProgressStage);
export const userNoteContentType = enumMapping<(typeof USER_NOTE_CONTENT_TYPES)[number], api.UserNoteContentType>(
  USER_NOTE_CONTENT_TYPES,
  "USER_NOTE_CONTENT_TYPE",
  api.UserNoteContentType,
);
/** The sort field a request names; UNSPECIFIED (and unknown values) mean the default. */
export function fromProtoSortField(value: api.JobSortField): JobSortField | undefined {
  switch (value) {
    case api.JobSortField.JOB_SORT_FIELD_CREATED_AT:
      return "createdAt";
    case api.JobSortField.JOB_SORT_FIELD_UPDATED_AT:
      return "updatedAt";
    case api.JobSortField.JOB_SORT_FIELD_COMPLETED_AT:
      return "completedAt";
    default:
      return undefined;
  }
}

export function fromProtoSortOrder(value: api.SortOrder): SortOrder | undefined {
  if (value === api.SortOrder.SORT_ORDER_ASC) return "asc";
  if (value === api.SortOrder.SORT_ORDER_DESC) return "desc";
  return undefined;
}

const optional = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

export const toProtoUserNote = (note: UserNote): api.UserNote => ({
  timestamp: note.timestamp,
  content: note.content,
  contentType: userNoteContentType.toProto(note.contentType),
});

/** A note; segments and attachments only when given (GetNote). */
export function toProtoNote(note: Note | NoteDetails): api.Note {
  const details = "segments" in note ? note : undefined;
  return {
    id: note.id,
    userId: note.userId,
    courseId: note.courseId,
    title: note.title,
    content: optional(note.content),
    summary: optional(note.summary),
    audioUrl: optional(note.audioUrl),
    transcriptionStatus: transcriptionStatus.toProto(note.transcriptionStatus),
    metadata: { ...note.metadata },
    userNotes: note.userNotes.map(toProtoUserNote),
    transcriptSegments: (details?.segments ?? []).map((segment) => ({
      id: segment.id,
      noteId: segment.noteId,
      text: segment.text,
      startTime: segment.startTime,
      endTime: segment.endTime,
      speaker: optional(segment.speaker),
      confidence: segment.confidence,
    })),
    attachments: (details?.attachments ?? []).map((attachment) => ({
      id: attachment.id,
      noteId: attachment.noteId,
      fileUrl: attachment.fileUrl,
      fileName: attachment.fileName,
      fileSize: attachment.fileSize,
      mimeType: attachment.mimeType,
      timestamp: attachment.timestamp,
      description: optional(attachment.description),
      uploadedAt: attachment.uploadedAt,
    })),
    createdAt: note.createdAt,
    updatedAt: note.updatedAt,
  };
}

function toProtoJobNote(note: JobNoteSummary): api.JobNote {
  return {
    id: note.id,
    title: note.title,
    status: transcriptionStatus.toProto(note.status),
    courseId: note.courseId,
    duration: optional(note.duration),
    fileSize: optional(note.fileSize),
    mimeType: optional(note.mimeType),
    summary: optional(note.summary),
    createdAt: note.createdAt,
    updatedAt: note.updatedAt,
  };
}

export function toProtoJob(job: ImportJob, note: JobNoteSummary | null = null): api.ImportJob {
  return {
    id: job.id,
    userId: job.userId,
    noteId: optional(job.noteId),
    type: importType.toProto(job.type),
    source: jobSource.toProto(job.source),
    title: job.title,
    status: jobStatus.toProto(job.status),
    progress: job.progress,
    stage: job.stage ? progressStage.toProto(job.stage) : api.ProgressStage.PROGRESS_STAGE_UNSPECIFIED,
    errorMessage: optional(job.errorMessage),
    attempts: job.attempts,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    completedAt: optional(job.completedAt),
    note: note ? toProtoJobNote(note) : undefined,
  };
}

export const toProtoJobView = (view: JobView): api.ImportJob => toProtoJob(view.job, view.note);
