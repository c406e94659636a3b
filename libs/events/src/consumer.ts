import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { TRANSACTION_OPTIONS, type SqlClient } from "@study/db";
import { contextFromTraceHeaders, type Logger } from "@study/platform";
import type { Channel, ChannelModel, ConsumeMessage } from "amqplib";
import type { AmqpConnection } from "./connection";
import { decodeEnvelope, EVENT_TYPES, type EventCase, type EventEnvelope, type PayloadOf } from "./envelope";
import { DEFAULT_EXCHANGE } from "./publisher";

const tracer = trace.getTracer("@study/events");
const ATTEMPT_HEADER = "x-study-attempt";

/** A handler gets the typed payload, the envelope, and the transaction in which the inbox row is written. */
export type EventHandler<C extends EventCase, Tx> = (payload: PayloadOf<C>, envelope: EventEnvelope, tx: Tx) => Promise<void>;
export type EventHandlers<Tx> = { [C in EventCase]?: EventHandler<C, Tx> };

export interface InboxDatabase<Tx extends SqlClient> {
  $transaction<R>(fn: (tx: Tx) => Promise<R>, options?: { timeout?: number; maxWait?: number }): Promise<R>;
}

/**
 * What every consumer of a process is opened with: the broker connection, the database of its inbox, the exchange
 * and the logger (the runtime hands it to a composition as `consumerLink`). A consumer adapter's options extend it
 * with the use cases its handlers call, and pass it on with `consumerLinkOf`.
 */
export interface ConsumerLink<Tx extends SqlClient> {
  connection: AmqpConnection;
  db: InboxDatabase<Tx>;
  exchange: string;
  logger: Logger;
  /** Delay before each retry, the last value repeating (the defaults when unset; tests shorten them). */
  retryDelaysMs?: number[];
}

/** The link alone, out of an adapter's options (which also carry its use cases): what startConsumer takes of them. */
export function consumerLinkOf<Tx extends SqlClient>(options: ConsumerLink<Tx>): ConsumerLink<Tx> {
  return { connection: options.connection, db: options.db, exchange: options.exchange, logger: options.logger, retryDelaysMs: options.retryDelaysMs };
}

export interface ConsumerOptions<Tx extends SqlClient> extends Omit<ConsumerLink<Tx>, "exchange"> {
  /** The consuming service; names its queues `<exchange>.<consumer>` (+ `.retry`, `.dlq`) and its inbox rows. */
  consumer: string;
  handlers: EventHandlers<Tx>;
  exchange?: string;
  prefetch?: number;
  /** Deliveries before a message is dead-lettered. */
  maxAttempts?: number;
  /**
   * `transaction` (default): the handler runs inside the inbox transaction (effects and inbox row commit
   * together). `after`: for long-running work that must not hold a transaction (the media worker's imports):
   * the inbox is checked first, the handler runs outside any transaction (its `tx` argument is undefined and
   * it must be idempotent itself), and the inbox row is written after it succeeded.
   */
  inbox?: "transaction" | "after";
  /**
   * Called when a handler's failures dead-letter an event, before the message moves to the DLQ: the place to
   * record the give-up where a user sees it (e.g. fail the import job the event asked for), so that nothing
   * waits forever on an event that will not be handled. Its own failure is logged; the event is dead-lettered
   * anyway (and a replay runs the handler again).
   */
  onDeadLetter?: (envelope: EventEnvelope, lastError: string) => Promise<void>;
}

export function queueNames(exchange: string, consumer: string) {
  const main = `${exchange}.${consumer}`;
  return { main, retry: `${main}.retry`, dead: `${main}.dlq` };
}

export interface RunningConsumer {
  /**
   * Resolves once every message being handled was acked or moved (retry or dead-letter queue): an orderly
   * shutdown awaits it before closing the broker connection, so that a failed handler's message is not cut off
   * half-way through its move.
   */
  idle(): Promise<void>;
}

/**
 * Consumes the service's durable queue. A message is acked only after its handler's transaction (effects +
 * inbox row) committed; a redelivered event finds its inbox row and is acked without a second effect. A
 * handler that throws sends the message to the retry queue (per-message TTL, then back to the main queue);
 * after `maxAttempts` it goes to the dead-letter queue with the error recorded in its headers.
 */
export async function startConsumer<Tx extends SqlClient>(options: ConsumerOptions<Tx>): Promise<RunningConsumer> {
  const exchange = options.exchange ?? DEFAULT_EXCHANGE;
  const names = queueNames(exchange, options.consumer);
  const maxAttempts = options.maxAttempts ?? 5;
  const delays = options.retryDelaysMs ?? [1_000, 5_000, 15_000, 30_000];
  const byType = new Map<string, EventCase>((Object.keys(options.handlers) as EventCase[]).map((eventCase) => [EVENT_TYPES[eventCase], eventCase]));

  const subscribe = async (connection: ChannelModel): Promise<void> => {
    const channel = await connection.createConfirmChannel();
    channel.on("error", (error: Error) => options.logger.warn({ err: error }, "consumer channel error"));
    // A channel can die alone (e.g. a protocol error) while its connection lives on: subscribe again then.
    // When the connection itself goes, the connection's reconnect runs the set-up instead.
    channel.once("close", () => {
      setTimeout(() => {
        if (!options.connection.isCurrent(connection)) return;
        options.logger.warn({ queue: names.main }, "consumer channel closed; subscribing again");
        subscribe(connection).catch((error: unknown) => options.logger.error({ err: error }, "could not subscribe again"));
      }, 1_000);
    });
    await channel.assertExchange(exchange, "topic", { durable: true });
    await channel.assertQueue(names.main, { durable: true });
    await channel.assertQueue(names.retry, {
      durable: true,
      arguments: { "x-dead-letter-exchange": "", "x-dead-letter-routing-key": names.main },
    });
    await channel.assertQueue(names.dead, { durable: true });
    for (const type of byType.keys()) await channel.bindQueue(names.main, exchange, type);
    await channel.prefetch(options.prefetch ?? 16);
    await channel.consume(names.main, (message) => {
      if (!message) return;
      const handling = handleMessage(channel, message);
      inFlight.add(handling);
      void handling.finally(() => inFlight.delete(handling));
    });
  };
  const inFlight = new Set<Promise<void>>();
  await options.connection.onConnected(subscribe);
  return {
    idle: async () => {
      await Promise.allSettled([...inFlight]);
    },
  };

  async function handleMessage(channel: Channel, message: ConsumeMessage): Promise<void> {
    let envelope: EventEnvelope;
    try {
      envelope = decodeEnvelope(message.content);
    } catch (error) {
      await moveTo(channel, message, names.dead, 1, `undecodable message: ${(error as Error).message}`);
      return;
    }
    const eventCase = byType.get(envelope.type);
    const { payload } = envelope;
    if (!eventCase || payload?.$case !== eventCase) {
      // Retrying cannot help a message this consumer has no handler for, or whose payload does not match its type.
      await moveTo(
        channel,
        message,
        names.dead,
        1,
        `no handler for ${envelope.type || "(no type)"} with payload ${envelope.payload?.$case ?? "(none)"}`,
      );
      return;
    }
    // An amqplib instrumentation may already have opened a consume span from the headers; else read them here.
    const parent = trace.getSpan(context.active())
      ? context.active()
      : contextFromTraceHeaders((message.properties.headers ?? {}) as { traceparent?: string; tracestate?: string });
    const span = tracer.startSpan(
      `process ${envelope.type}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          "messaging.system": "rabbitmq",
          "messaging.consumer.group.name": options.consumer,
          "messaging.message.id": envelope.id,
        },
      },
      parent,
    );
    const attempt = Number(message.properties.headers?.[ATTEMPT_HEADER] ?? 0) + 1;
    try {
      await context.with(trace.setSpan(parent, span), async () => {
        const handler = options.handlers[eventCase] as EventHandler<EventCase, Tx>;
        const handled =
          options.inbox === "after"
            ? await handleThenRecord(handler, envelope, payload.value)
            : await options.db.$transaction(async (tx) => {
                const inserted = await tx.$executeRawUnsafe(
                  `INSERT INTO inbox_message (consumer, event_id, type) VALUES ($1, $2, $3)
               ON CONFLICT (consumer, event_id) DO NOTHING`,
                  options.consumer,
                  envelope.id,
                  envelope.type,
                );
                if (inserted === 0) return false;
                await handler(payload.value, envelope, tx);
                return true;
              }, TRANSACTION_OPTIONS);
        options.logger.debug({ event: envelope.type, eventId: envelope.id, duplicate: !handled }, "event handled");
      });
      span.end();
      channel.ack(message);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      const reason = error instanceof Error ? error.message : String(error);
      if (attempt >= maxAttempts) {
        options.logger.error({ err: error, event: envelope.type, eventId: envelope.id, attempt }, "event dead-lettered");
        await options
          .onDeadLetter?.(envelope, reason)
          .catch((hookError: unknown) =>
            options.logger.error({ err: hookError, event: envelope.type, eventId: envelope.id }, "dead-letter hook failed"),
          );
        await moveTo(channel, message, names.dead, attempt, reason);
      } else {
        options.logger.warn({ err: error, event: envelope.type, eventId: envelope.id, attempt }, "event handler failed; will retry");
        const delay = delays[Math.min(attempt - 1, delays.length - 1)];
        await moveTo(channel, message, names.retry, attempt, reason, delay);
      }
    }
  }

  async function handleThenRecord(handler: EventHandler<EventCase, Tx>, envelope: EventEnvelope, payload: PayloadOf<EventCase>): Promise<boolean> {
    const seen = await options.db.$transaction((tx) =>
      tx.$queryRawUnsafe<unknown[]>(`SELECT 1 FROM inbox_message WHERE consumer = $1 AND event_id = $2`, options.consumer, envelope.id),
    );
    if (seen.length > 0) return false;
    // eslint-disable-next-line no-restricted-syntax -- inbox "after" runs the handler outside any transaction, and its handlers take no `tx` (see ConsumerOptions.inbox)
    await handler(payload, envelope, undefined as unknown as Tx);
    await options.db.$transaction((tx) =>
      tx.$executeRawUnsafe(
        `INSERT INTO inbox_message (consumer, event_id, type) VALUES ($1, $2, $3) ON CONFLICT (consumer, event_id) DO NOTHING`,
        options.consumer,
        envelope.id,
        envelope.type,
      ),
    );
    return true;
  }

  /** Republishes a copy (confirmed) and only then acks the original; if that fails the original stays unacked. */
  async function moveTo(channel: Channel, message: ConsumeMessage, queue: string, attempt: number, reason: string, delayMs?: number) {
    try {
      const confirm = channel as Channel & { waitForConfirms(): Promise<void> };
      channel.sendToQueue(queue, message.content, {
        ...message.properties,
        persistent: true,
        expiration: delayMs === undefined ? undefined : String(delayMs),
        headers: {
          ...message.properties.headers,
          [ATTEMPT_HEADER]: attempt,
          "x-study-last-error": reason.slice(0, 1_000),
          "x-study-original-routing-key": message.fields.routingKey,
        },
      });
      await confirm.waitForConfirms();
      channel.ack(message);
    } catch (error) {
      options.logger.warn({ err: error }, "could not move message; it stays unacked and will be redelivered");
    }
  }
}
