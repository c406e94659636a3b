import { EventSourceParserStream, type EventSourceMessage } from "eventsource-parser/stream";
import { StudyApiError } from "./errors.js";

/** One server-sent event: its name (`message` when unnamed), its data parsed as JSON when it is JSON, and its id. */
export interface ServerEvent<T = unknown> {
  event: string;
  data: T;
  id?: string;
}

const parse = (message: EventSourceMessage): ServerEvent => {
  let data: unknown = message.data;
  try {
    data = JSON.parse(message.data);
    // eslint-disable-next-line no-restricted-syntax -- not an error: data that is not JSON is plain text and stays text
  } catch {}
  return { event: message.event ?? "message", data, id: message.id };
};

/**
 * The events of an answer with `Content-Type: text/event-stream`, as they arrive, until the server ends the stream
 * or `signal` aborts it. A refused request (JSON error envelope) throws StudyApiError before the first event.
 */
export async function* eventsOf(response: Response, signal?: AbortSignal): AsyncGenerator<ServerEvent, void, undefined> {
  if (!response.ok) throw await StudyApiError.fromResponse(response);
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  // eslint-disable-next-line no-restricted-syntax -- cancelling a stream the caller stopped reading: nothing to report
  const stop = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener("abort", stop, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield parse(value);
    }
  } catch (error) {
    if (signal?.aborted) return;
    throw error;
  } finally {
    signal?.removeEventListener("abort", stop);
    reader.releaseLock();
  }
}
