import { AppError, isUuid, requireUserId } from "@study/platform";
import type { ImportJob } from "../domain/import-job";
import { createImport, type ImportRequestDraft } from "../domain/import-request";
import type { Note } from "../domain/note";
import { importRequested, noteImportStarted } from "./media-events";
import { newId } from "./new-id";
import type { ImportJobRepository } from "./ports/import-job-repository.port";

/**
 * The record-creation part of the three import endpoints: a PENDING note and a PENDING job, created together
 * with the ImportRequested work message and the NoteImportStarted event in one transaction. The caller
 * (the gateway) has checked that the course belongs to the user.
 */
export class CreateImport {
  constructor(private readonly jobs: ImportJobRepository) {}

  async execute(userId: string, draft: ImportRequestDraft): Promise<{ note: Note; job: ImportJob }> {
    requireUserId(userId);
    if (draft.courseId.trim() && !isUuid(draft.courseId.trim())) {
      throw AppError.validation("Invalid import", [{ field: "courseId", message: "must be a course id" }]);
    }
    const { note, job } = createImport({ noteId: newId(), jobId: newId() }, userId, draft, new Date());
    await this.jobs.createImport(note, job, [importRequested(job), noteImportStarted(note, job)]);
    return { note, job };
  }
}
