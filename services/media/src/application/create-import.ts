import { requireUserId } from "@study/platform/ids";
import type { ImportJob } from "../domain/import-job";
import {
  audioImportMimeType,
  createImport,
  defaultImportTitle,
  fileNameOfUrl,
  validateImportRequest,
  type ImportRequestDraft,
} from "../domain/import-request";
import type { Note } from "../domain/note";
import { importRequested, noteImportStarted } from "./media-events";
import { newId } from "@study/grpc/ids";
import type { CourseDirectory } from "./ports/course-directory.port";
import type { DownloadUrlPolicy } from "./ports/download-url-policy.port";
import type { ImportJobRepository } from "./ports/import-job-repository.port";
import type { VideoInfo, VideoSource } from "./ports/video-source.port";

/** An import as a caller asks for it: without a title (null or absent), media makes one (see defaultImportTitle). */
export interface ImportCommand extends Omit<ImportRequestDraft, "title"> {
  title?: string | null;
}

export interface CreatedImport {
  note: Note;
  job: ImportJob;
  /** Video imports whose title media made: the video's metadata it was made from. */
  videoInfo: VideoInfo | null;
}

const isHttpUrl = (value: string | null | undefined): value is string => {
  try {
    return !!value && ["http:", "https:"].includes(new URL(value.trim()).protocol);
  } catch {
    return false;
  }
};

/**
 * The record-creation part of the three import endpoints, with every import rule: the audio format (named, or
 * implied by the URL's file name: 400 UNEXPECTED_FILE), the fields (400 VALIDATION_ERROR), the course, which
 * must be the user's (404, asked of the courses service), the title (made from the video's metadata, the URL's
 * file name or the uploaded file's name when the user gave none), then a PENDING note and a PENDING job created
 * together with the ImportRequested work message and the NoteImportStarted event in one transaction.
 *
 * An audio URL the service may not download from is refused here (400 URL_NOT_ALLOWED), as reading a video's
 * metadata refuses it. The worker checks again when it downloads, on every redirect and against the address it
 * connects to: a host's DNS answer may change in between.
 */
export class CreateImport {
  constructor(
    private readonly jobs: Pick<ImportJobRepository, "createImport">,
    private readonly downloadUrls: DownloadUrlPolicy,
    private readonly courses: CourseDirectory,
    private readonly videos: Pick<VideoSource, "getInfo">,
  ) {}

  async execute(userId: string, command: ImportCommand): Promise<CreatedImport> {
    requireUserId(userId);
    // Absent: media makes the title. Given (even blank): checked as the user typed it.
    const givenTitle = command.title ?? null;
    let draft: ImportRequestDraft = { ...command, title: givenTitle ?? "" };
    if (command.type === "AUDIO_IMPORT" && isHttpUrl(command.sourceUrl)) {
      const fileName = fileNameOfUrl(command.sourceUrl.trim());
      draft = { ...draft, mimeType: audioImportMimeType(command.mimeType, fileName), originalFilename: command.originalFilename ?? fileName };
    }
    // Every field is checked before other services are asked (a title still to be made stands in as "-").
    validateImportRequest({ ...draft, title: givenTitle ?? "-" });
    await this.courses.assertOwned(userId, command.courseId.trim());

    let videoInfo: VideoInfo | null = null;
    // A valid request has a type, and a URL when it is a video import.
    if (givenTitle === null && draft.type !== null) {
      if (draft.type === "VIDEO_IMPORT" && draft.sourceUrl) videoInfo = await this.videos.getInfo(draft.sourceUrl.trim());
      draft.title = defaultImportTitle(draft.type, { videoTitle: videoInfo?.title, sourceUrl: draft.sourceUrl, fileName: draft.originalFilename });
    }
    const { note, job } = createImport({ noteId: newId(), jobId: newId() }, userId, draft, new Date());
    if (job.type === "AUDIO_IMPORT" && job.sourceUrl) await this.downloadUrls.check(job.sourceUrl);
    await this.jobs.createImport(note, job, [importRequested(job), noteImportStarted(note, job)]);
    return { note, job, videoInfo };
  }
}
