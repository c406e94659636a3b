import { randomUUID } from "node:crypto";
import { media as api } from "@study/contracts";
import { AmqpConnection, listDeadLetters } from "@study/events";
import { createClient } from "@study/grpc";
import { createLogger } from "@study/platform";
import { migrationSources, startService } from "@study/runtime";
import { createTestDatabase, eventually, startFakeCourses, testRabbitMqUrl, uniqueSuffix } from "@study/testkit";
import { connect } from "amqplib";
import { PrismaImportJobRepository } from "../../src/adapters/db/prisma-import-job-repository";
import { GIVEN_UP_MESSAGE, startImportWorkerConsumer, WORKER_CONSUMER_NAME } from "../../src/adapters/events/import-worker-consumer";
import { FailJob } from "../../src/application/fail-job";
import type { ProcessImport } from "../../src/application/process-import";
import type { MediaConfig } from "../../src/config";
import type { PrismaClient } from "../../src/generated/prisma/client";
import { mediaService } from "../../src/service";

const { ImportType, JobStatus, TranscriptionStatus } = api;

/**
 * An import whose work message the worker can never handle (here: the database "fails" on every delivery)
 * must not stay PENDING for ever: when the broker gives up and dead-letters the message, the job FAILS with a
 * message the user can act on.
 */
describe("media worker: an import the broker gives up on", () => {
  let service: Awaited<ReturnType<typeof startService<PrismaClient, MediaConfig>>>;
  let courses: Awaited<ReturnType<typeof startFakeCourses>>;
  let client: ReturnType<typeof createClient<api.MediaServiceClient>>;
  let amqp: AmqpConnection;
  let exchange: string;
  const runs: string[] = [];

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase("media_dead_letter", migrationSources(mediaService));
    exchange = `test.${uniqueSuffix()}`;
    courses = await startFakeCourses();
    service = await startService(mediaService, {
      handleSignals: false,
      env: {
        DATABASE_URL: databaseUrl,
        RABBITMQ_URL: testRabbitMqUrl(),
        GRPC_PORT: "0",
        EVENT_EXCHANGE: exchange,
        LOG_LEVEL: "silent",
        COURSES_GRPC_ADDRESS: courses.address,
      },
    });
    client = createClient(api.MediaServiceClient, api.MediaServiceService, `127.0.0.1:${service.grpcPort}`);
    const logger = createLogger("media-worker-test", "silent");
    amqp = new AmqpConnection(testRabbitMqUrl(), logger, "media-worker-test");
    await amqp.start(5_000);
    const alwaysBroken: Pick<ProcessImport, "run"> = {
      run: async (jobId: string) => {
        runs.push(jobId);
        throw new Error("Connection terminated unexpectedly");
      },
    };
    await startImportWorkerConsumer({
      connection: amqp,
      db: service.db,
      exchange,
      logger,
      processImport: alwaysBroken,
      failJob: new FailJob(new PrismaImportJobRepository(service.db)),
      storage: { delete: async () => undefined } as never,
      concurrency: 1,
      shutdown: new AbortController().signal,
      maxImportAttempts: 1,
      retryDelaysMs: [20],
    });
  });

  afterAll(async () => {
    client.close();
    await amqp?.close();
    const admin = await connect(testRabbitMqUrl());
    const channel = await admin.createChannel();
    for (const suffix of ["", ".retry", ".dlq"]) await channel.deleteQueue(`${exchange}.${WORKER_CONSUMER_NAME}${suffix}`);
    await admin.close();
    await service?.lifecycle.stop();
    await courses?.close();
  });

  it("fails the job and its note when the work message is dead-lettered, after the broker's attempts", async () => {
    const userId = `user-${uniqueSuffix()}`;
    const { job, note } = await client.createImport({
      userId,
      type: ImportType.IMPORT_TYPE_VIDEO_IMPORT,
      title: "Lecture 7",
      courseId: randomUUID(),
      sourceUrl: "https://video.example.com/watch?v=xyz",
      speedMultiplier: 1,
    });

    const failed = await eventually(async () => {
      const { job: seen } = await client.getJob({ userId, jobId: job!.id });
      return seen?.status === JobStatus.JOB_STATUS_FAILED ? seen : undefined;
    });
    expect(failed.errorMessage).toBe(GIVEN_UP_MESSAGE);
    // maxImportAttempts 1 → the broker tries 1 + 2 deliveries before it gives up.
    expect(runs.filter((id) => id === job!.id)).toHaveLength(3);
    expect((await client.getNote({ userId, noteId: note!.id })).note?.transcriptionStatus).toBe(TranscriptionStatus.TRANSCRIPTION_STATUS_FAILED);

    const admin = await connect(testRabbitMqUrl());
    try {
      const letters = await eventually(async () => {
        const found = await listDeadLetters(admin, exchange, WORKER_CONSUMER_NAME);
        return found.length > 0 ? found : undefined;
      });
      expect(letters).toEqual([
        expect.objectContaining({ type: "media.import.requested.v1", attempts: 3, lastError: "Connection terminated unexpectedly" }),
      ]);
    } finally {
      await admin.close();
    }
  });
});
