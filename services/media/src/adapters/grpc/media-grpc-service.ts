import { media as api } from "@study/contracts";
import { bindUnaryHandlers, pageInfo, serverStream } from "@study/grpc";
import { AppError, type Logger } from "@study/platform";
import type { CancelJob } from "../../application/cancel-job";
import type { CreateImport } from "../../application/create-import";
import type { GetVideoInfo } from "../../application/get-video-info";
import type { DeleteJob } from "../../application/delete-job";
import type { DeleteNote } from "../../application/delete-note";
import type { GetJob } from "../../application/get-job";
import type { GetJobStats } from "../../application/get-job-stats";
import type { GetNote } from "../../application/get-note";
import type { ListJobs } from "../../application/list-jobs";
import type { ListNotes } from "../../application/list-notes";
import type { RenameNote } from "../../application/rename-note";
import type { RetryJob } from "../../application/retry-job";
import type { UpdateUserNotes } from "../../application/update-user-notes";
import type { WatchImportJob } from "../../application/watch-import-job";
import {
  fromProtoSortField,
  fromProtoSortOrder,
  importType,
  jobSource,
  jobStatus,
  progressStage,
  toProtoJob,
  toProtoJobView,
  toProtoNote,
  userNoteContentType,
} from "./proto-mapping";

export interface MediaUseCases {
  listNotes: ListNotes;
  getNote: GetNote;
  updateUserNotes: UpdateUserNotes;
  renameNote: RenameNote;
  deleteNote: DeleteNote;
  createImport: CreateImport;
  listJobs: ListJobs;
  getJob: GetJob;
  getJobStats: GetJobStats;
  cancelJob: CancelJob;
  deleteJob: DeleteJob;
  retryJob: RetryJob;
  getVideoInfo: GetVideoInfo;
  watchImportJob: WatchImportJob;
}

/** A filter enum: UNSPECIFIED means no filter, a value this build does not know is invalid input. */
function filterOf<D>(value: number, fromProto: (value: never) => D | null, field: string, allowed: string): D | undefined {
  if (value === 0) return undefined;
  const domain = fromProto(value as never);
  if (domain === null) throw AppError.validation("Invalid filter", [{ field, message: `must be one of ${allowed}` }]);
  return domain;
}

export function mediaGrpcService(useCases: MediaUseCases, logger: Logger): api.MediaServiceServer {
  const watchImportJob = serverStream<api.WatchImportJobRequest, api.WatchImportJobResponse>(
    logger,
    "WatchImportJob",
    async (request, { send, signal }) => {
      for await (const state of useCases.watchImportJob.execute(request.userId, request.jobId, signal)) {
        await send({
          status: jobStatus.toProto(state.status),
          progress: state.progress,
          stage: state.stage ? progressStage.toProto(state.stage) : api.ProgressStage.PROGRESS_STAGE_UNSPECIFIED,
          errorMessage: state.errorMessage ?? undefined,
        });
      }
    },
  );
  const unaryHandlers = bindUnaryHandlers(logger, api.MediaServiceService, {
    listNotes: async (request) => {
      const page = await useCases.listNotes.execute(request.userId, {
        courseId: request.courseId,
        limit: request.page?.limit,
        offset: request.page?.offset,
      });
      return { notes: page.notes.map((note) => toProtoNote(note)), page: pageInfo({ ...page, count: page.notes.length }) };
    },
    getNote: async (request) => ({
      note: toProtoNote(await useCases.getNote.execute(request.userId, request.noteId)),
    }),
    updateUserNotes: async (request) => {
      const note = await useCases.updateUserNotes.execute(
        request.userId,
        request.noteId,
        request.userNotes.map((entry) => ({
          timestamp: entry.timestamp,
          content: entry.content,
          contentType: userNoteContentType.fromProto(entry.contentType),
        })),
      );
      return { note: toProtoNote(note) };
    },
    renameNote: async (request) => ({
      note: toProtoNote(await useCases.renameNote.execute(request.userId, request.noteId, request.title)),
    }),
    deleteNote: async (request) => {
      await useCases.deleteNote.execute(request.userId, request.noteId);
      return {};
    },
    createImport: async (request) => {
      const { note, job, videoInfo } = await useCases.createImport.execute(request.userId, {
        type: importType.fromProto(request.type),
        title: request.title,
        courseId: request.courseId,
        sourceUrl: request.sourceUrl,
        storageKey: request.storageKey,
        speedMultiplier: request.speedMultiplier,
        mimeType: request.mimeType,
        originalFilename: request.originalFilename,
        fileSize: request.fileSize,
        audioUrl: request.audioUrl,
      });
      return { note: toProtoNote(note), job: toProtoJob(job), videoInfo: videoInfo ?? undefined };
    },
    listJobs: async (request) => {
      const page = await useCases.listJobs.execute(request.userId, {
        status: filterOf(request.status, jobStatus.fromProto, "status", "PENDING, IN_PROGRESS, COMPLETED, FAILED, CANCELLED"),
        source: filterOf(request.source, jobSource.fromProto, "source", "VIDEO, UPLOAD"),
        sortBy: fromProtoSortField(request.sortBy),
        sortOrder: fromProtoSortOrder(request.sortOrder),
        limit: request.page?.limit,
        offset: request.page?.offset,
      });
      return { jobs: page.jobs.map(toProtoJobView), page: pageInfo({ ...page, count: page.jobs.length }) };
    },
    getJob: async (request) => ({
      job: toProtoJobView(await useCases.getJob.execute(request.userId, request.jobId)),
    }),
    getJobStats: async (request) => {
      const stats = await useCases.getJobStats.execute(request.userId);
      return { ...stats, recentJobs: stats.recentJobs.map((job) => toProtoJob(job)) };
    },
    cancelJob: async (request) => ({
      job: toProtoJobView(await useCases.cancelJob.execute(request.userId, request.jobId)),
    }),
    retryJob: async (request) => ({
      job: toProtoJobView(await useCases.retryJob.execute(request.userId, request.jobId)),
    }),
    deleteJob: async (request) => {
      await useCases.deleteJob.execute(request.userId, request.jobId);
      return {};
    },
    getVideoInfo: (request) => useCases.getVideoInfo.execute(request.userId, request.url),
  });
  return { ...unaryHandlers, watchImportJob };
}
