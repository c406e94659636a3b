import { TRANSACTION_OPTIONS, type SqlClient, type TransactionalClient } from "@study/db";
import type { Logger } from "@study/platform";
import { Client } from "pg";
import { envelopeFromJson, envelopeToJson, type EventEnvelope } from "./envelope";
import type { AmqpConnection } from "./connection";
import { EventPublisher } from "./publisher";

/** Writes events into the outbox inside the caller's transaction (the same one as the state change). */
export async function enqueueEvents(tx: SqlClient, envelopes: EventEnvelope[]): Promise<void> {
  for (const envelope of envelopes) {
    await tx.$executeRawUnsafe(
      "INSERT INTO outbox_message (id, type, payload) VALUES ($1, $2, $3::jsonb)",
      envelope.id,
      envelope.type,
      JSON.stringify(envelopeToJson(envelope)),
    );
  }
}

interface OutboxRow {
  id: string;
  payload: unknown;
}

export interface OutboxRelayOptions {
  db: TransactionalClient;
  /** Used for a dedicated LISTEN connection, so new rows are published at once rather than at the next poll. */
  databaseUrl: string;
  publisher: EventPublisher;
  logger: Logger;
  batchSize?: number;
  pollIntervalMs?: number;
  /** Published rows older than this are deleted. */
  retentionHours?: number;
}

/**
 * Publishes pending outbox rows with publisher confirms and marks them published. Rows are claimed with
 * FOR UPDATE SKIP LOCKED, so several replicas can relay side by side; a row is marked only after the broker
 * confirmed it, so a crash or a broker outage delays events but never loses them (delivery is at least
 * once; consumers deduplicate through their inbox).
 */
export class OutboxRelay {
  private listener?: Client;
  private timer?: NodeJS.Timeout;
  private running = false;
  private draining?: Promise<void>;
  private again = false;
  private failures = 0;
  private lastCleanup = 0;

  constructor(private readonly options: OutboxRelayOptions) {}

  async start(): Promise<void> {
    this.running = true;
    await this.listen();
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.draining;
    await this.listener?.end().catch((error: unknown) => this.options.logger.debug({ err: error }, "outbox LISTEN connection did not close cleanly"));
  }

  /** Publishes until nothing is pending; resolves when this pass is over. */
  kick(): Promise<void> {
    if (this.draining) {
      this.again = true;
      return this.draining;
    }
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      if (this.again && this.running) {
        this.again = false;
        void this.kick();
      }
    });
    return this.draining;
  }

  private async listen(): Promise<void> {
    try {
      const listener = new Client({ connectionString: this.options.databaseUrl });
      listener.on("notification", () => void this.kick());
      listener.on("error", (error) => {
        this.options.logger.warn({ err: error }, "outbox listener lost; relying on polling until it reconnects");
        this.listener = undefined;
        setTimeout(() => this.running && void this.listen(), 2_000);
      });
      await listener.connect();
      await listener.query("LISTEN outbox_message");
      this.listener = listener;
    } catch (error) {
      this.options.logger.warn({ err: error }, "outbox LISTEN failed; polling only");
    }
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void this.kick().finally(() => {
        const backoff = this.failures === 0 ? 0 : Math.min(10_000, 200 * 2 ** Math.min(this.failures, 6));
        this.schedule(Math.max(this.options.pollIntervalMs ?? 1_000, backoff));
      });
    }, delayMs);
  }

  private async drain(): Promise<void> {
    const batchSize = this.options.batchSize ?? 100;
    try {
      for (let pending = await this.hasPending(); pending;) {
        const published = await this.publishBatch(batchSize);
        this.failures = 0;
        pending = published === batchSize;
      }
      this.failures = 0;
      await this.cleanup();
    } catch (error) {
      this.failures += 1;
      this.options.logger.warn({ err: error, failures: this.failures }, "outbox relay could not publish; will retry");
    }
  }

  /**
   * Whether any row waits, asked on the LISTEN connection when there is one: most polls find nothing (LISTEN
   * brought new rows at once), and a plain query costs a fraction of a transaction through the ORM (measured: an
   * idle process went from ≈ 1 % of a core to almost nothing). Without the connection, it assumes there may be.
   */
  private async hasPending(): Promise<boolean> {
    if (!this.listener) return true;
    const { rows } = await this.listener.query<{ pending: boolean }>(
      "SELECT EXISTS (SELECT 1 FROM outbox_message WHERE published_at IS NULL) AS pending",
    );
    return rows[0]?.pending ?? false;
  }

  private async publishBatch(batchSize: number): Promise<number> {
    const { db, publisher } = this.options;
    // The failure is recorded inside the transaction (so attempts/last_error survive) and rethrown after it.
    const outcome = await db.$transaction(async (tx) => {
      const rows = await tx.$queryRawUnsafe<OutboxRow[]>(
        `SELECT id, payload FROM outbox_message WHERE published_at IS NULL
           ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        batchSize,
      );
      if (rows.length === 0) return { published: 0 };
      const ids = rows.map((row) => row.id);
      try {
        await publisher.publish(rows.map((row) => envelopeFromJson(row.payload)));
      } catch (error) {
        await tx.$executeRawUnsafe(
          "UPDATE outbox_message SET attempts = attempts + 1, last_error = $2 WHERE id = ANY($1::text[])",
          ids,
          error instanceof Error ? error.message : String(error),
        );
        return { published: 0, error };
      }
      await tx.$executeRawUnsafe("UPDATE outbox_message SET published_at = now() WHERE id = ANY($1::text[])", ids);
      return { published: rows.length };
    }, TRANSACTION_OPTIONS);
    if ("error" in outcome) throw outcome.error;
    return outcome.published;
  }

  private async cleanup(): Promise<void> {
    const now = Date.now();
    if (now - this.lastCleanup < 60 * 60 * 1000) return;
    this.lastCleanup = now;
    const hours = this.options.retentionHours ?? 72;
    await this.options.db.$executeRawUnsafe(
      `DELETE FROM outbox_message WHERE published_at < now() - ($1::text || ' hours')::interval`,
      String(hours),
    );
  }
}

/**
 * Starts a process's relay: it publishes through `amqp` to `exchange`, and drains at once whenever the broker
 * connection comes back, so a backlog built up during an outage leaves without waiting for the next poll.
 */
export async function startOutboxRelay(
  options: Omit<OutboxRelayOptions, "publisher"> & { amqp: AmqpConnection; exchange: string },
): Promise<OutboxRelay> {
  const { amqp, exchange, ...relayOptions } = options;
  const relay = new OutboxRelay({ ...relayOptions, publisher: new EventPublisher(amqp, exchange) });
  await relay.start();
  amqp.onReady(() => void relay.kick());
  return relay;
}
