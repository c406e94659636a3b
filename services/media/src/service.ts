import { indexing, media as api } from "@study/contracts";
import { GrpcCourseDirectory, searchableSourceGrpcService } from "@study/grpc";
import { queueNames } from "@study/events";
import { prismaOptions } from "@study/db";
import type { ServiceDefinition } from "@study/runtime";
import { PrismaImportJobRepository } from "./adapters/db/prisma-import-job-repository";
import { PrismaNoteRepository } from "./adapters/db/prisma-note-repository";
import { PgJobProgressFeed } from "./adapters/db/job-progress-notifications";
import { startDomainEventsConsumer } from "./adapters/events/domain-events-consumer";
import { WORKER_CONSUMER_NAME } from "./adapters/events/import-worker-consumer";
import { mediaGrpcService } from "./adapters/grpc/media-grpc-service";
import { fileDownloadRoute } from "./adapters/http/file-route";
import { attachmentUploadRoute, audioUploadRoute } from "./adapters/http/upload-routes";
import { createFileStorage } from "./adapters/storage/create-file-storage";
import { AddAttachment } from "./application/add-attachment";
import { logRefusalsTo, OutboundUrlPolicy } from "./adapters/download/outbound-url-policy";
import { YtDlpVideoSource } from "./adapters/video/yt-dlp-video-source";
import { GetVideoInfo } from "./application/get-video-info";
import { RecordUploadedContent } from "./application/record-uploaded-content";
import { CancelJob } from "./application/cancel-job";
import { CreateImport } from "./application/create-import";
import { DeleteCourseNotes } from "./application/delete-course-notes";
import { DeleteJob } from "./application/delete-job";
import { DeleteNote } from "./application/delete-note";
import { GetJob } from "./application/get-job";
import { GetJobStats } from "./application/get-job-stats";
import { GetNote } from "./application/get-note";
import { GetNoteFile } from "./application/get-note-file";
import { ListJobs } from "./application/list-jobs";
import { ListNotes } from "./application/list-notes";
import { ListSearchables } from "./application/list-searchables";
import { RenameNote } from "./application/rename-note";
import { RetryJob } from "./application/retry-job";
import { UpdateUserNotes } from "./application/update-user-notes";
import { WatchImportJob } from "./application/watch-import-job";
import { mediaConfigSchema, type MediaConfig } from "./config";
import { PrismaClient } from "./generated/prisma/client";
import { startInternalHttpServer } from "@study/storage";
import { mediaMigrations } from "./migrations";

/** The composition of the media service: adapters → use cases → gRPC, and the course-deletion consumer. */
export const mediaService: ServiceDefinition<PrismaClient, MediaConfig> = {
  ...mediaMigrations,
  configSchema: mediaConfigSchema,
  createDatabase: (_config, pool) => new PrismaClient(prismaOptions(pool)),
  async compose({ config, db, consumerLink, amqp, logger, lifecycle }) {
    const notes = new PrismaNoteRepository(db);
    const jobs = new PrismaImportJobRepository(db);

    await startDomainEventsConsumer({
      ...consumerLink,
      deleteCourseNotes: new DeleteCourseNotes(notes),
    });

    const getNote = new GetNote(notes);
    const downloadUrls = OutboundUrlPolicy.fromSetting(config.MEDIA_DOWNLOAD_ALLOWLIST, undefined, logRefusalsTo(logger));
    const videos = new YtDlpVideoSource({ policy: downloadUrls });
    // Imports check the course with the courses service (CreateImport).
    if (!config.COURSES_GRPC_ADDRESS) throw new Error("Invalid configuration: COURSES_GRPC_ADDRESS: is required");
    const courses = new GrpcCourseDirectory(config.COURSES_GRPC_ADDRESS);
    lifecycle.onStop("courses client", async () => courses.close());
    const createImport = new CreateImport(jobs, downloadUrls, courses, videos);
    const getJob = new GetJob(jobs);
    const progressFeed = new PgJobProgressFeed(config.DATABASE_URL, logger);
    lifecycle.onStop("job progress feed", () => progressFeed.close());
    const implementation = mediaGrpcService(
      {
        listNotes: new ListNotes(notes),
        getNote,
        updateUserNotes: new UpdateUserNotes(notes, getNote),
        renameNote: new RenameNote(notes, getNote),
        deleteNote: new DeleteNote(notes),
        createImport,
        listJobs: new ListJobs(jobs),
        getJob,
        getJobStats: new GetJobStats(jobs, {
          waiting: async () => (await amqp.queueDepth(queueNames(config.EVENT_EXCHANGE, WORKER_CONSUMER_NAME).main))?.messages ?? null,
        }),
        cancelJob: new CancelJob(jobs, getJob),
        deleteJob: new DeleteJob(jobs, getJob),
        retryJob: new RetryJob(jobs, getJob),
        getVideoInfo: new GetVideoInfo(videos),
        watchImportJob: new WatchImportJob(jobs, progressFeed),
      },
      logger,
    );
    if (config.INTERNAL_UPLOAD_SECRET) {
      const storage = createFileStorage(config);
      const internalHttp = await startInternalHttpServer({
        host: config.INTERNAL_BIND_HOST,
        port: config.MEDIA_HTTP_PORT,
        secret: config.INTERNAL_UPLOAD_SECRET,
        storage,
        logger,
        uploads: {
          "/uploads/audio": audioUploadRoute({
            maxBytes: config.MEDIA_MAX_UPLOAD_BYTES,
            storage,
            createImport,
            recordContent: new RecordUploadedContent(notes),
            logger,
          }),
          "/uploads/notes/:noteId/attachments": attachmentUploadRoute({ storage, addAttachment: new AddAttachment(notes) }),
        },
        files: fileDownloadRoute({ storage, getNoteFile: new GetNoteFile(notes), logger }),
      });
      lifecycle.onStop("internal HTTP server", async () => {
        await internalHttp.close();
      });
      logger.info({ port: internalHttp.port }, "internal HTTP endpoint (uploads, files) listening");
    }
    return [
      { definition: api.MediaServiceService, implementation },
      { definition: indexing.SearchableSourceServiceService, implementation: searchableSourceGrpcService(new ListSearchables(notes), logger) },
    ];
  },
};
