import { decodeEnvelope, type EventEnvelope } from "@study/events";
import { connect } from "amqplib";

export interface EventCapture {
  events: EventEnvelope[];
  /** Resolves with the first captured event of the type (waiting for it if needed). */
  next(type: string, timeoutMs?: number): Promise<EventEnvelope>;
  close(): Promise<void>;
}

/** Binds a temporary queue to the exchange and records every event whose routing key matches the pattern. */
export async function captureEvents(url: string, exchange: string, pattern = "#"): Promise<EventCapture> {
  const connection = await connect(url);
  const channel = await connection.createChannel();
  await channel.assertExchange(exchange, "topic", { durable: true });
  const { queue } = await channel.assertQueue("", { exclusive: true, autoDelete: true });
  await channel.bindQueue(queue, exchange, pattern);
  const events: EventEnvelope[] = [];
  const listeners = new Set<() => void>();
  await channel.consume(queue, (message) => {
    if (!message) return;
    events.push(decodeEnvelope(message.content));
    channel.ack(message);
    for (const listener of listeners) listener();
  });
  return {
    events,
    next(type, timeoutMs = 10_000) {
      const found = () => events.find((event) => event.type === type);
      return new Promise((resolve, reject) => {
        const existing = found();
        if (existing) return resolve(existing);
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no ${type} event within ${timeoutMs} ms (saw: ${events.map((e) => e.type).join(", ") || "none"})`));
        }, timeoutMs);
        const check = () => {
          const event = found();
          if (!event) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve(event);
        };
        listeners.add(check);
      });
    },
    async close() {
      await connection.close();
    },
  };
}
