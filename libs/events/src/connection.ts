import type { Logger } from "@study/platform";
import { connect, type ChannelModel, type ConfirmChannel } from "amqplib";

type Setup = (connection: ChannelModel) => Promise<void>;

/**
 * One AMQP connection per process that heals itself: it reconnects with backoff after a broker restart and
 * re-runs every registered set-up (topology, consumers, the publisher's confirm channel).
 */
export class AmqpConnection {
  private connection?: ChannelModel;
  private publishChannel?: ConfirmChannel;
  private readonly setups: Setup[] = [];
  private closed = false;
  private connecting?: Promise<void>;
  private retryTimer?: NodeJS.Timeout;
  private readonly waiters = new Set<() => void>();
  private readonly readyListeners: (() => void)[] = [];

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
    private readonly name = "study",
  ) {}

  /** Starts connecting in the background; resolves once connected or after `waitMs`, whichever is first. */
  async start(waitMs = 0): Promise<void> {
    void this.connectLoop();
    if (waitMs > 0) {
      await this.waitUntilConnected(waitMs).catch((error: unknown) =>
        this.logger.warn({ err: error, waitMs }, "RabbitMQ not reachable yet; connecting on in the background"),
      );
    }
  }

  /** Registers a set-up that runs now (if connected) and after every reconnect. */
  async onConnected(setup: Setup): Promise<void> {
    this.setups.push(setup);
    if (this.connection) await setup(this.connection);
  }

  /** Calls `listener` after every (re)connect, once the set-ups ran and the connection is usable. */
  onReady(listener: () => void): void {
    this.readyListeners.push(listener);
  }

  /** Whether `connection` is still this process's live connection (not replaced, not closed). */
  isCurrent(connection: ChannelModel): boolean {
    return !this.closed && this.connection === connection;
  }

  get isConnected(): boolean {
    return this.connection !== undefined;
  }

  waitUntilConnected(timeoutMs: number): Promise<void> {
    if (this.connection) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(done);
        reject(new Error(`RabbitMQ not reachable within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(done);
    });
  }

  /** The shared confirm channel used for publishing; throws while the broker is unreachable. */
  async confirmChannel(): Promise<ConfirmChannel> {
    if (!this.connection) throw new Error("RabbitMQ connection is not available");
    if (!this.publishChannel) {
      const channel = await this.connection.createConfirmChannel();
      channel.on("close", () => {
        if (this.publishChannel === channel) this.publishChannel = undefined;
      });
      channel.on("error", (error: Error) => this.logger.warn({ err: error }, "publish channel error"));
      this.publishChannel = channel;
    }
    return this.publishChannel;
  }

  /**
   * Messages ready in a queue and its consumers (a passive check on a channel of its own, since checking a
   * missing queue closes the channel); null when the queue does not exist. Throws while the broker is unreachable.
   */
  async queueDepth(queue: string): Promise<{ messages: number; consumers: number } | null> {
    if (!this.connection) throw new Error("RabbitMQ connection is not available");
    const channel = await this.connection.createChannel();
    channel.on("error", () => undefined);
    try {
      const { messageCount, consumerCount } = await channel.checkQueue(queue);
      return { messages: messageCount, consumers: consumerCount };
    } catch (error) {
      if ((error as { code?: number }).code === 404) return null;
      throw error;
    } finally {
      await channel.close().catch((error: unknown) => this.logger.debug({ err: error, queue }, "could not close the queue-depth channel"));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const connection = this.connection;
    this.connection = undefined;
    this.publishChannel = undefined;
    await connection?.close().catch((error: unknown) => this.logger.debug({ err: error }, "RabbitMQ connection did not close cleanly"));
  }

  private async connectLoop(attempt = 0): Promise<void> {
    if (this.closed || this.connection || this.connecting) return;
    this.connecting = (async () => {
      let connection: ChannelModel | undefined;
      try {
        connection = await connect(this.url, { clientProperties: { connection_name: this.name } });
        if (this.closed) {
          // close() was called while connecting: don't keep (or set up) this connection.
          await connection.close().catch((error: unknown) => this.logger.debug({ err: error }, "RabbitMQ connection did not close cleanly"));
          return;
        }
        const current = connection;
        connection.on("error", (error: Error) => this.logger.warn({ err: error }, "RabbitMQ connection error"));
        connection.on("close", () => {
          if (this.connection !== current) return;
          this.connection = undefined;
          this.publishChannel = undefined;
          if (!this.closed) {
            this.logger.warn("RabbitMQ connection closed; reconnecting");
            this.scheduleReconnect(0);
          }
        });
        // Set-ups run before the connection is published, so one registered meanwhile runs exactly once
        // (by this loop, which iterates the live list, and not also by onConnected).
        for (const setup of this.setups) await setup(connection);
        this.connection = connection;
        this.logger.info("connected to RabbitMQ");
        for (const waiter of this.waiters) waiter();
        this.waiters.clear();
        for (const listener of this.readyListeners) listener();
      } catch (error) {
        this.connection = undefined;
        await connection?.close().catch((closeError: unknown) => this.logger.debug({ err: closeError }, "RabbitMQ connection did not close cleanly"));
        this.logger.warn({ err: error, attempt }, "RabbitMQ not reachable; retrying");
        this.scheduleReconnect(attempt + 1);
      }
    })();
    try {
      await this.connecting;
    } finally {
      this.connecting = undefined;
    }
  }

  private scheduleReconnect(attempt: number): void {
    if (this.closed) return;
    const delay = Math.min(5_000, 250 * 2 ** Math.min(attempt, 5));
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.connectLoop(attempt), delay);
  }
}
