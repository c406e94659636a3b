import { existsSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pgTransactionalClient, type SqlClient } from "@study/db";
import { AmqpConnection, createEvent, EventPublisher, PLATFORM_MIGRATIONS, queueNames, type EventEnvelope, type EventHandlers } from "@study/events";
import { createLogger, Lifecycle } from "@study/platform";
import { createTestDatabase, eventually, testRabbitMqUrl, uniqueSuffix } from "@study/testkit";
import { connect, type ChannelModel } from "amqplib";
import { Pool } from "pg";
import { startJobConsumer, startJobWorker } from "../src";

const logger = createLogger("job-worker-test", "silent");

const importRequested = (jobId: string): EventEnvelope =>
  createEvent("media", "alice", { $case: "importRequested", value: { jobId, noteId: jobId, importType: "audio_upload", speedMultiplier: 1 } });

/** A promise with its resolver, for handlers that wait for the test. */
function gate() {
  let resolveOpened: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    resolveOpened = resolve;
  });
  return { opened, open: () => resolveOpened() };
}

/** startJobConsumer and startJobWorker against the shared test PostgreSQL (the inbox) and RabbitMQ. */
describe("job worker", () => {
  let pool: Pool;
  let admin: ChannelModel;
  let observer: AmqpConnection;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    pool = new Pool({ connectionString: await createTestDatabase("job_worker", [PLATFORM_MIGRATIONS]), max: 4 });
    admin = await connect(testRabbitMqUrl());
    observer = new AmqpConnection(testRabbitMqUrl(), logger, "job-worker-test-observer");
    await observer.start(5_000);
  });

  afterAll(async () => {
    try {
      for (const close of closers.reverse()) await close();
      await observer?.close();
      await admin?.close();
    } finally {
      await pool?.end();
    }
  });

  /** A broker connection and an exchange of the test's own, with a publisher and a view of the worker's queues. */
  async function broker() {
    const exchange = `test.${uniqueSuffix()}`;
    const consumer = `worker-${uniqueSuffix()}`;
    const connection = new AmqpConnection(testRabbitMqUrl(), logger, consumer);
    await connection.start(5_000);
    const names = queueNames(exchange, consumer);
    closers.push(async () => {
      await connection.close();
      const channel = await admin.createChannel();
      for (const queue of [names.main, names.retry, names.dead]) await channel.deleteQueue(queue);
      await channel.deleteExchange(exchange);
      await channel.close();
    });
    const publisher = new EventPublisher(connection, exchange);
    // Asked through a connection of its own: the worker's is closed when the stop test looks.
    const depth = async (queue: string) => (await observer.queueDepth(queue))?.messages;
    const link = { connection, db: pgTransactionalClient(pool), exchange, logger };
    return { consumer, names, link, depth, publish: (...envelopes: EventEnvelope[]) => publisher.publish(envelopes) };
  }

  it("runs `concurrency` jobs at once, outside any transaction", async () => {
    const { consumer, link, publish } = await broker();
    const started: string[] = [];
    const transactions: unknown[] = [];
    const release = gate();
    const handlers: EventHandlers<SqlClient> = {
      importRequested: async (event, _envelope, tx) => {
        transactions.push(tx);
        started.push(event.jobId);
        await release.opened;
      },
    };
    const running = await startJobConsumer({ ...link, consumer, concurrency: 2, maxJobAttempts: 1, handlers, onDeadLetter: async () => undefined });
    await publish(importRequested("a"), importRequested("b"), importRequested("c"));
    // Two jobs hold the two places (neither returns until released); the third waits for one of them.
    await eventually(async () => started.length === 2);
    expect([...started].sort()).toEqual(["a", "b"]);
    release.open();
    await eventually(async () => started.length === 3);
    await running.idle();
    expect(transactions).toEqual([undefined, undefined, undefined]);
  });

  it("gives a job two deliveries more than its own limit, then hands it to onDeadLetter and the dead-letter queue", async () => {
    const { consumer, names, link, depth, publish } = await broker();
    const deliveries: string[] = [];
    const givenUp: EventEnvelope[] = [];
    const job = importRequested("broken");
    await startJobConsumer({
      ...link,
      retryDelaysMs: [10],
      consumer,
      concurrency: 1,
      maxJobAttempts: 2,
      handlers: {
        importRequested: async (event) => {
          deliveries.push(event.jobId);
          throw new Error("the database is gone");
        },
      },
      onDeadLetter: async (envelope) => {
        givenUp.push(envelope);
      },
    });
    await publish(job);
    await eventually(async () => (await depth(names.dead)) === 1);
    expect(deliveries).toEqual(["broken", "broken", "broken", "broken"]);
    expect(givenUp.map((envelope) => envelope.id)).toEqual([job.id]);
  });

  it("clears stopped workers' scratch folders at start; on stop, aborts running jobs, gives their messages back and removes its folder", async () => {
    const { consumer, names, link, depth, publish } = await broker();
    const workRoot = await mkdtemp(join(tmpdir(), "job-worker-"));
    // A pid no process has (above the kernel's pid_max): the folder of a worker that died.
    const stoppedWorker = join(workRoot, "worker-99999999");
    await mkdir(stoppedWorker);
    await writeFile(join(stoppedWorker, "half-done.wav"), "left behind");
    const lifecycle = new Lifecycle(logger, { exit: () => undefined });
    // As in startProcess: the broker's closer is registered first, so it runs after the worker's.
    lifecycle.onStop("rabbitmq", () => link.connection.close());

    const running = gate();
    let scope: { workDirectory: string; shutdown: AbortSignal; concurrency: number } | undefined;
    await startJobWorker(
      { logger, lifecycle, consumerLink: link },
      {
        jobs: "imports",
        concurrency: 1,
        workRoot,
        start: async ({ link: given, workDirectory }) => {
          scope = { workDirectory, shutdown: given.shutdown, concurrency: given.concurrency };
          await mkdir(workDirectory, { recursive: true });
          return startJobConsumer({
            ...given,
            // Long enough that the message is still in the retry queue when the test looks.
            retryDelaysMs: [60_000],
            consumer,
            maxJobAttempts: 3,
            handlers: {
              importRequested: async () => {
                running.open();
                await new Promise((_resolve, reject) => given.shutdown.addEventListener("abort", () => reject(new Error("aborted"))));
              },
            },
            onDeadLetter: async () => undefined,
          });
        },
      },
    );
    expect(existsSync(stoppedWorker)).toBe(false);
    expect(scope?.workDirectory).toBe(join(workRoot, `worker-${process.pid}`));
    expect(scope?.concurrency).toBe(1);
    expect(existsSync(scope?.workDirectory ?? "")).toBe(true);

    await publish(importRequested("interrupted"));
    await running.opened;
    await lifecycle.stop();
    expect(scope?.shutdown.aborted).toBe(true);
    expect(await depth(names.retry)).toBe(1);
    expect(existsSync(scope?.workDirectory ?? "")).toBe(false);
  });
});
