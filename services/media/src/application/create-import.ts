import { AppError, isUuid, requireUserId } from "@study/platform";
import type { ImportJob } from "../domain/import-job";
import { createImport, type ImportRequestDraft } from "../domain/import-request";
import type { Note } from "../domain/note";
import { importRequested, noteImportStarted } from "./media-events";
import { newId } from "@study/grpc/ids";
import type { DownloadUrlPolicy } from "./ports/download-url-policy.port";
import type { ImportJobRepository } from "./ports/import-job-repository.port";

/**
 * The record-creation part of the three import endpoints: a PENDING note and a PENDING job, created together
 * with the ImportRequested work message and the NoteImportStarted event in one transaction. The caller
 * (the gateway) has checked that the course belongs to the user.
 *
 * An audio URL the service may not download from is refused here (400 URL_NOT_ALLOWED), as the video import
 * refuses it when reading the video's metadata. The worker checks again when it downloads, on every redirect
 * and against the address it connects to: a host's DNS answer may change in between.
 */
export class CreateImport {
  constructor(
    private readonly jobs: ImportJobRepository,
    private readonly downloadUrls: DownloadUrlPolicy,
  ) {}

  async execute(userId: string, draft: ImportRequestDraft): Promise<{ note: Note; job: ImportJob }> {
    requireUserId(userId);
    if (draft.courseId.trim() && !isUuid(draft.courseId.trim())) {
      throw AppError.validation("Invalid import", [{ field: "courseId", message: "must be a course id" }]);
    }
    const { note, job } = createImport({ noteId: newId(), jobId: newId() }, userId, draft, new Date());
    if (job.type === "AUDIO_IMPORT" && job.sourceUrl) await this.downloadUrls.check(job.sourceUrl);
    await this.jobs.createImport(note, job, [importRequested(job), noteImportStarted(note, job)]);
    return { note, job };
  }
}
