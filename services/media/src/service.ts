import { join } from "node:path";
import { media as api } from "@study/contracts";
import { prismaOptions } from "@study/db";
import type { ServiceDefinition } from "@study/runtime";
import { PrismaImportJobRepository } from "./adapters/db/prisma-import-job-repository";
import { PrismaNoteRepository } from "./adapters/db/prisma-note-repository";
import { startDomainEventsConsumer } from "./adapters/events/domain-events-consumer";
import { mediaGrpcService } from "./adapters/grpc/media-grpc-service";
import { CancelJob } from "./application/cancel-job";
import { CreateImport } from "./application/create-import";
import { DeleteCourseNotes } from "./application/delete-course-notes";
import { DeleteJob } from "./application/delete-job";
import { DeleteNote } from "./application/delete-note";
import { GetJob } from "./application/get-job";
import { GetJobStats } from "./application/get-job-stats";
import { GetNote } from "./application/get-note";
import { ListJobs } from "./application/list-jobs";
import { ListNotes } from "./application/list-notes";
import { RenameNote } from "./application/rename-note";
import { UpdateUserNotes } from "./application/update-user-notes";
import { mediaConfigSchema, type MediaConfig } from "./config";
import { PrismaClient } from "./generated/prisma/client";

/** The composition of the media service: adapters → use cases → gRPC, and the course-deletion consumer. */
export const mediaService: ServiceDefinition<PrismaClient, MediaConfig> = {
  name: "media",
  configSchema: mediaConfigSchema,
  migrationsDirectory: join(__dirname, "..", "prisma", "migrations"),
  createDatabase: (config) => new PrismaClient(prismaOptions(config.DATABASE_URL, config.DATABASE_POOL_SIZE)),
  async compose({ config, db, amqp, logger }) {
    const notes = new PrismaNoteRepository(db);
    const jobs = new PrismaImportJobRepository(db);

    await startDomainEventsConsumer({ connection: amqp, db, exchange: config.EVENT_EXCHANGE, logger, deleteCourseNotes: new DeleteCourseNotes(notes) });

    const getNote = new GetNote(notes);
    const getJob = new GetJob(jobs);
    const implementation = mediaGrpcService(
      {
        listNotes: new ListNotes(notes),
        getNote,
        updateUserNotes: new UpdateUserNotes(notes, getNote),
        renameNote: new RenameNote(notes, getNote),
        deleteNote: new DeleteNote(notes),
        createImport: new CreateImport(jobs),
        listJobs: new ListJobs(jobs),
        getJob,
        getJobStats: new GetJobStats(jobs),
        cancelJob: new CancelJob(jobs, getJob),
        deleteJob: new DeleteJob(jobs, getJob),
      },
      logger,
    );
    return [{ definition: api.MediaServiceService, implementation }];
  },
};
