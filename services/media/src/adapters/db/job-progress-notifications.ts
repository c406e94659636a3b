import type { Logger } from "@study/platform";
import { Client } from "pg";
import type { JobProgress, JobProgressFeed, JobProgressListener } from "../../application/ports/job-progress-feed.port";
import type { ImportJob } from "../../domain/import-job";
import type { Prisma } from "../../generated/prisma/client";

/** The PostgreSQL channel on which every recorded change of an import job is announced. */
export const JOB_PROGRESS_CHANNEL = "media_import_job_progress";

/**
 * Announces the job's new state inside the transaction that writes it: PostgreSQL delivers it on commit only,
 * in commit order, and never for a rolled-back write. The payload stays far below NOTIFY's 8000 bytes (error
 * messages are at most 1000 characters).
 */
export async function notifyJobProgress(tx: Prisma.TransactionClient, job: ImportJob): Promise<void> {
  const payload: JobProgress = {
    jobId: job.id,
    status: job.status,
    progress: job.progress,
    stage: job.stage,
    errorMessage: job.errorMessage,
    version: job.version,
  };
  await tx.$executeRaw`SELECT pg_notify(${JOB_PROGRESS_CHANNEL}, ${JSON.stringify(payload)})`;
}

/**
 * The feed of job changes for one process: a single connection LISTENs on the channel (opened on the first
 * subscription) and fans each notification out to the subscribers of that job. When the connection is lost,
 * it reconnects while anyone is subscribed and then asks every subscriber to read its job again.
 */
export class PgJobProgressFeed implements JobProgressFeed {
  private readonly subscribers = new Map<string, Set<JobProgressListener>>();
  private connection: Promise<Client> | null = null;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly logger: Logger,
  ) {}

  async subscribe(jobId: string, listener: JobProgressListener): Promise<{ close(): void }> {
    if (this.closed) throw new Error("The job progress feed is closed");
    const listeners = this.subscribers.get(jobId) ?? new Set();
    listeners.add(listener);
    this.subscribers.set(jobId, listeners);
    const close = () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.subscribers.get(jobId) === listeners) this.subscribers.delete(jobId);
    };
    try {
      await this.listening();
    } catch (error) {
      close();
      throw error;
    }
    return { close };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const connection = this.connection;
    this.connection = null;
    if (connection) {
      await connection
        .then((client) => client.end())
        .catch((error: unknown) => this.logger.debug({ err: error }, "job progress listener closed with an error"));
    }
  }

  private listening(): Promise<Client> {
    this.connection ??= this.connect().catch((error: unknown) => {
      this.connection = null;
      throw error;
    });
    return this.connection;
  }

  private async connect(): Promise<Client> {
    const client = new Client({ connectionString: this.databaseUrl });
    client.on("notification", (message) => {
      if (message.channel === JOB_PROGRESS_CHANNEL && message.payload) this.deliver(message.payload);
    });
    client.on("error", (error) => this.lost(client, error));
    client.on("end", () => this.lost(client, new Error("connection ended")));
    await client.connect();
    await client.query(`LISTEN ${JOB_PROGRESS_CHANNEL}`);
    return client;
  }

  private deliver(payload: string): void {
    let progress: JobProgress;
    try {
      progress = JSON.parse(payload) as JobProgress;
    } catch (error) {
      this.logger.warn({ err: error }, "job progress notification is not JSON; ignored");
      return;
    }
    for (const listener of this.subscribers.get(progress.jobId) ?? []) listener.onChange(progress);
  }

  private lost(client: Client, error: unknown): void {
    if (this.closed) return;
    // A connection still being opened fails its own `connect` instead (and its subscriber with it).
    void this.connection?.then(
      (current) => {
        if (current !== client) return;
        this.connection = null;
        client.end().catch((endError: unknown) => this.logger.debug({ err: endError }, "lost job progress listener did not close cleanly"));
        this.logger.warn({ err: error }, "job progress listener lost; reconnecting");
        this.reconnect();
      },
      () => undefined,
    );
  }

  private reconnect(): void {
    clearTimeout(this.reconnectTimer);
    if (this.closed || this.subscribers.size === 0) return;
    this.reconnectTimer = setTimeout(() => {
      this.listening().then(
        () => {
          for (const listeners of this.subscribers.values()) for (const listener of listeners) listener.onResync();
        },
        (error: unknown) => {
          this.logger.warn({ err: error }, "job progress listener could not reconnect; retrying");
          this.reconnect();
        },
      );
    }, 1_000);
  }
}
