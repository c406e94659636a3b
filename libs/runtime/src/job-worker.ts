import { rm } from "node:fs/promises";
import type { SqlClient } from "@study/db";
import {
  consumerLinkOf,
  startConsumer,
  type AmqpConnection,
  type ConsumerLink,
  type EventEnvelope,
  type EventHandlers,
  type RunningConsumer,
} from "@study/events";
import type { Lifecycle, Logger } from "@study/platform";
import { processScratchFolder, removeScratchOfStoppedProcesses } from "@study/storage";

/**
 * A job worker's consumer (media's imports, documents' extractions): one event asks for a long job, others for small
 * chores (a deleted record's files). Handlers run outside any transaction, the inbox row written after them
 * (`inbox: "after"`), so each is idempotent itself.
 */
/** What a job worker's consumer adapter takes besides its use cases: the `link` startJobWorker hands its `start`. */
export interface JobConsumerLink<Tx extends SqlClient> extends ConsumerLink<Tx> {
  /** Jobs run at once by this process (the channel's prefetch). */
  concurrency: number;
  /** Aborted when the process stops: running jobs stop, and their messages go back to the broker. */
  shutdown: AbortSignal;
}

export interface JobConsumerOptions<Tx extends SqlClient> extends ConsumerLink<Tx> {
  /** The worker's own consumer name (processes sharing a queue would receive each other's events). */
  consumer: string;
  /** Jobs run at once by this process (the channel's prefetch). */
  concurrency: number;
  /** The job's own limit of starts, past which its use case fails it ("interrupted too many times"). */
  maxJobAttempts: number;
  handlers: EventHandlers<Tx>;
  /** Records the give-up of a dead-lettered job where its user sees it: otherwise it would wait for ever. */
  onDeadLetter: (envelope: EventEnvelope) => Promise<void>;
}

export function startJobConsumer<Tx extends SqlClient>(options: JobConsumerOptions<Tx>): Promise<RunningConsumer> {
  return startConsumer<Tx>({
    ...consumerLinkOf(options),
    consumer: options.consumer,
    prefetch: options.concurrency,
    inbox: "after",
    // Every start of a job is one delivery: with two deliveries to spare, the job's own limit is reached before
    // the broker dead-letters the message.
    maxAttempts: options.maxJobAttempts + 2,
    onDeadLetter: options.onDeadLetter,
    handlers: options.handlers,
  });
}

/** How long a stopping worker waits for its aborted jobs' messages to be back with the broker. */
const ABORTED_JOBS_WAIT_MS = 10_000;

/** The process's consumer link (ProcessContext's `consumerLink`), over its database client. */
interface ProcessConsumerLink<Db> {
  connection: AmqpConnection;
  db: Db;
  exchange: string;
  logger: Logger;
}

export interface JobWorkerOptions<Db> {
  /** What the worker runs, plural ("imports"), naming its stop step. */
  jobs: string;
  /** Jobs run at once by this process. */
  concurrency: number;
  /** Parent of the per-process scratch folders (`worker-<pid>`). */
  workRoot: string;
  /**
   * Builds the use cases over this process's scratch folder and starts the job consumer (`startJobConsumer`) over
   * `link`, whose `shutdown` is aborted when the process stops (running jobs stop with it).
   */
  start(scope: { link: ProcessConsumerLink<Db> & { concurrency: number; shutdown: AbortSignal }; workDirectory: string }): Promise<RunningConsumer>;
}

/**
 * The composition every job worker shares: the scratch folders that stopped processes (SIGKILL, crash) left under
 * `workRoot` are removed, this process's own is named, the consumer started; on stop, running jobs are aborted and
 * their messages given back to the broker (through the retry queue, for another worker) before the broker
 * connection closes, then the scratch folder goes.
 */
export async function startJobWorker<Db>(
  context: { logger: Logger; lifecycle: Lifecycle; consumerLink: ProcessConsumerLink<Db> },
  options: JobWorkerOptions<Db>,
): Promise<RunningConsumer> {
  const { logger, lifecycle } = context;
  await removeScratchOfStoppedProcesses(options.workRoot, (folder) => logger.info({ folder }, "removed the temporary files of a stopped worker"));
  const workDirectory = processScratchFolder(options.workRoot);
  const shutdown = new AbortController();
  const consumer = await options.start({
    link: { ...context.consumerLink, concurrency: options.concurrency, shutdown: shutdown.signal },
    workDirectory,
  });
  // Registered after the broker's closer, so it runs before it.
  lifecycle.onStop(
    `running ${options.jobs}`,
    async () => {
      shutdown.abort();
      await Promise.race([consumer.idle(), new Promise((resolve) => setTimeout(resolve, ABORTED_JOBS_WAIT_MS).unref())]);
      await rm(workDirectory, { recursive: true, force: true });
    },
    { timeoutMs: ABORTED_JOBS_WAIT_MS + 2_000 },
  );
  return consumer;
}
