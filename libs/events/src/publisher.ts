import { context, propagation, SpanKind, trace } from "@opentelemetry/api";
import { contextFromTraceHeaders } from "@study/platform";
import type { ConfirmChannel } from "amqplib";
import type { AmqpConnection } from "./connection";
import { encodeEnvelope, type EventEnvelope } from "./envelope";

export const DEFAULT_EXCHANGE = "study.events";
const tracer = trace.getTracer("@study/events");

/**
 * Publishes envelopes to the durable topic exchange: persistent messages, routing key = event type,
 * and the promise settles only when the broker confirmed the message.
 */
export class EventPublisher {
  /** The channel on which the exchange was last declared: a new channel (after a reconnect or a channel error) declares it again. */
  private declaredOn?: ConfirmChannel;

  constructor(
    private readonly connection: AmqpConnection,
    private readonly exchange: string = DEFAULT_EXCHANGE,
  ) {}

  async publish(envelopes: EventEnvelope[]): Promise<void> {
    const channel = await this.connection.confirmChannel();
    if (this.declaredOn !== channel) {
      await channel.assertExchange(this.exchange, "topic", { durable: true });
      this.declaredOn = channel;
    }
    const confirms = envelopes.map((envelope) => {
      const parent = contextFromTraceHeaders(envelope);
      const span = tracer.startSpan(
        `publish ${envelope.type}`,
        {
          kind: SpanKind.PRODUCER,
          attributes: {
            "messaging.system": "rabbitmq",
            "messaging.destination.name": this.exchange,
            "messaging.message.id": envelope.id,
            "messaging.rabbitmq.destination.routing_key": envelope.type,
          },
        },
        parent,
      );
      const headers: Record<string, string> = {};
      const publishContext = trace.setSpan(parent, span);
      propagation.inject(publishContext, headers);
      return new Promise<void>((resolve, reject) => {
        // Published within the span's context, so an amqplib instrumentation continues this trace too.
        context.with(publishContext, () =>
          channel.publish(
            this.exchange,
            envelope.type,
            encodeEnvelope(envelope),
            {
              persistent: true,
              contentType: "application/x-protobuf",
              type: envelope.type,
              messageId: envelope.id,
              timestamp: Math.floor((envelope.occurredAt ?? new Date()).getTime() / 1000),
              appId: envelope.source,
              headers,
            },
            (error: unknown) => {
              span.end();
              if (error) reject(error instanceof Error ? error : new Error("publish was nacked by the broker"));
              else resolve();
            },
          ),
        );
      });
    });
    await Promise.all(confirms);
  }

  /** Forgets the declared state after a reconnect (the exchange is re-asserted on the next publish). */
  reset(): void {
    this.declaredOn = undefined;
  }
}
