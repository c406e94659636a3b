import type { ChannelModel } from "amqplib";
import { decodeEnvelope } from "./envelope";
import { queueNames } from "./consumer";

export interface DeadLetter {
  eventId: string;
  type: string;
  attempts: number;
  lastError: string;
}

/** Lists (without removing) the dead letters of a consumer. */
export async function listDeadLetters(connection: ChannelModel, exchange: string, consumer: string): Promise<DeadLetter[]> {
  const channel = await connection.createChannel();
  const letters: DeadLetter[] = [];
  try {
    const { dead } = queueNames(exchange, consumer);
    for (;;) {
      const message = await channel.get(dead, { noAck: false });
      if (!message) break;
      // An undecodable message (the consumer dead-letters those at once) is listed from its AMQP properties.
      let envelope: { id: string; type: string } | undefined;
      try {
        envelope = decodeEnvelope(message.content);
      } catch {
        envelope = undefined;
      }
      letters.push({
        eventId: envelope?.id || String(message.properties.messageId ?? ""),
        type: envelope?.type || String(message.properties.type ?? message.properties.headers?.["x-study-original-routing-key"] ?? ""),
        attempts: Number(message.properties.headers?.["x-study-attempt"] ?? 0),
        lastError: String(message.properties.headers?.["x-study-last-error"] ?? ""),
      });
    }
  } finally {
    // Closing the channel returns every unacked message to the queue, in order.
    await channel.close();
  }
  return letters;
}

/**
 * Moves the dead letters of a consumer back to its main queue with a fresh attempt count: as many as the DLQ held
 * when the replay started. A letter the consumer dead-letters again meanwhile (the cause is not fixed, or a message
 * it cannot decode goes straight back) stays for the next replay, rather than going round for as long as the replay
 * keeps finding it.
 */
export async function replayDeadLetters(connection: ChannelModel, exchange: string, consumer: string): Promise<number> {
  const channel = await connection.createConfirmChannel();
  let replayed = 0;
  try {
    const { dead, main } = queueNames(exchange, consumer);
    const { messageCount } = await channel.checkQueue(dead);
    while (replayed < messageCount) {
      const message = await channel.get(dead, { noAck: false });
      if (!message) break;
      const headers = { ...message.properties.headers };
      delete headers["x-study-attempt"];
      channel.sendToQueue(main, message.content, { ...message.properties, headers });
      await channel.waitForConfirms();
      channel.ack(message);
      replayed += 1;
    }
  } finally {
    await channel.close();
  }
  return replayed;
}
