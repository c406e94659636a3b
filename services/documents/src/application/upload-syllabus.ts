import { newId } from "@study/grpc/ids";
import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import { createDocument, validateUploadFields, type Document, type StoredFile, type UploadFields } from "../domain/document";
import { isTimeZone } from "@study/platform/zoned-time";
import { parseSyllabus } from "../domain/syllabus/parse-syllabus";
import { documentProcessed, syllabusFailed } from "./document-events";
import type { CourseDirectory } from "./ports/course-directory.port";
import type { DocumentRepository } from "./ports/document-repository.port";
import type { SyllabusCalendar } from "./ports/syllabus-calendar.port";
import { ExtractionFailedError } from "./ports/text-extractor.port";
import { readStoredDocument, type ProcessDocumentDependencies } from "./process-document";

export interface SyllabusFields extends UploadFields {
  /** IANA time zone the syllabus's times are local to (default UTC). */
  timeZone?: string;
}

export interface UploadSyllabusDependencies extends Pick<
  ProcessDocumentDependencies,
  "storage" | "scratch" | "extractor" | "prepareChunks" | "limits" | "logger"
> {
  documents: Pick<DocumentRepository, "insert" | "announce">;
  courses: CourseDirectory;
  calendar: SyllabusCalendar;
  /** The syllabus is read before the upload is answered, within this time. */
  timeoutMs: number;
}

const refused = (code: string, message: string) => new AppError("validation", code, message);

/**
 * POST /api/documents/upload-syllabus, once the file is stored and its format known: reads it at once (within
 * `timeoutMs`), finds its dated items (domain/syllabus), creates them in the course's calendar (once each: a
 * re-upload adds nothing), and stores the document processed (SYLLABUS) with its text, chunks and the count of
 * events created. Nothing is kept when any step fails (the caller removes the stored file); the user is told by
 * the answer (400 SYLLABUS_PROCESSING_FAILED or SYLLABUS_PROCESSING_TIMEOUT) and by a notification
 * (SyllabusFailed).
 */
export class UploadSyllabus {
  constructor(private readonly deps: UploadSyllabusDependencies) {}

  async execute(
    userId: string,
    fields: SyllabusFields,
    file: StoredFile,
    now = new Date(),
  ): Promise<{ document: Document; eventsCreated: number; eventsExisting: number }> {
    const { deps } = this;
    requireUserId(userId);
    const timeZone = fields.timeZone?.trim() || "UTC";
    const upload = validateUploadFields({ ...fields, documentType: undefined }, file.fileName, { documentType: "SYLLABUS" });
    if (!isTimeZone(timeZone))
      throw AppError.validation("Invalid time zone", [{ field: "timeZone", message: "must be an IANA time zone such as America/New_York" }]);
    await deps.courses.assertOwned(userId, upload.courseId);

    const id = newId();
    const deadline = AbortSignal.timeout(deps.timeoutMs);
    try {
      const read = await readStoredDocument(deps, { id, storageKey: file.storageKey, format: file.format }, deadline);
      // The calendar refuses a batch that names a key twice: one item per key (the parser's keys are per item).
      const items = [
        ...new Map(parseSyllabus(read.result.extractedText, { referenceDate: now, timeZone }).items.map((item) => [item.key, item])).values(),
      ];
      deadline.throwIfAborted();
      const { created, existing } =
        items.length === 0
          ? { created: 0, existing: 0 }
          : await deps.calendar.createEvents(
              userId,
              upload.courseId,
              items.map((item) => ({ sourceKey: `syllabus:${upload.courseId}:${item.key}`, item })),
            );
      const document: Document = {
        ...createDocument(id, userId, upload, file, now),
        ...read.result,
        status: "COMPLETED",
        calendarEventsCreated: created,
      };
      await deps.documents.insert(document, [documentProcessed(document)], read.chunks);
      deps.logger.info({ documentId: document.id, items: items.length, created, existing }, "syllabus processed");
      return { document, eventsCreated: created, eventsExisting: existing };
    } catch (error) {
      const failure = deadline.aborted
        ? refused(
            "SYLLABUS_PROCESSING_TIMEOUT",
            `The syllabus could not be read within ${Math.round(deps.timeoutMs / 1000)} seconds; upload a shorter file or one with a text layer (a scanned syllabus is read by OCR, which is slow)`,
          )
        : error instanceof ExtractionFailedError
          ? refused("SYLLABUS_PROCESSING_FAILED", `The syllabus could not be read: ${error.message}`)
          : null;
      const message = failure?.message ?? "The syllabus could not be processed because of a server problem";
      await deps.documents
        .announce([syllabusFailed(userId, { courseId: upload.courseId, fileName: file.fileName, errorMessage: message })])
        .catch((announceError: unknown) => deps.logger.warn({ err: announceError }, "could not announce a failed syllabus"));
      throw failure ?? error;
    }
  }
}
