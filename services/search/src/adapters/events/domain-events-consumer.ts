import type { indexing } from "@study/contracts";
import { consumerLinkOf, startConsumer, type ConsumerLink, type RunningConsumer } from "@study/events";
import type { EventEnvelope } from "@study/events/envelope";
import type { IndexRecords } from "../../application/index-records";
import type { RemoveRecords } from "../../application/remove-records";
import type { RecordType } from "../../domain/search-record";
import type { Prisma } from "../../generated/prisma/client";
import { fromSearchable } from "../contracts/searchable-mapping";

/** Names the service's queues (`<exchange>.search`) and its inbox rows. */
export const CONSUMER_NAME = "search";

type Tx = Prisma.TransactionClient;

export interface DomainEventsConsumerOptions extends ConsumerLink<Tx> {
  /**
   * Events handled at once. Each holds a database connection for its inbox transaction while the embedded index
   * writes through another one: at most half the pool, so that handlers never wait for each other's connections.
   */
  prefetch: number;
  indexRecords: IndexRecords<Tx>;
  removeRecords: RemoveRecords<Tx>;
}

/**
 * Keeps the index current from the owners' events, each handled in the consumer's inbox transaction (a
 * redelivered event changes nothing twice). Create and update events carry the record's `searchable`; delete
 * events name the id.
 */
export function startDomainEventsConsumer(options: DomainEventsConsumerOptions): Promise<RunningConsumer> {
  const { logger, indexRecords, removeRecords } = options;

  /** Indexes an event's searchable; what cannot be indexed is logged and the event acknowledged (a retry would not help). */
  const index = async (searchable: indexing.Searchable | undefined, envelope: EventEnvelope, tx: Tx): Promise<void> => {
    const where = { event: envelope.type, eventId: envelope.id };
    if (!searchable) {
      // Published before events carried their searchable: the next change or a reindex brings the record in.
      logger.info(where, "event without a searchable record; skipped");
      return;
    }
    const mapped = fromSearchable(searchable);
    if ("problem" in mapped) {
      logger.error({ ...where, problem: mapped.problem }, "event with a searchable that cannot be indexed; skipped");
      return;
    }
    if (mapped.record.userId !== envelope.userId) {
      logger.error(
        { ...where, owner: mapped.record.userId, eventUser: envelope.userId },
        "searchable owned by another user than the event's; skipped",
      );
      return;
    }
    await indexRecords.execute(mapped.record, tx);
  };

  const remove = async (type: RecordType, id: string, courseId: string, envelope: EventEnvelope, tx: Tx): Promise<void> => {
    await removeRecords.execute({ type, id, userId: envelope.userId, courseId: courseId || undefined }, envelope.occurredAt ?? new Date(), tx);
  };

  return startConsumer<Tx>({
    ...consumerLinkOf(options),
    consumer: CONSUMER_NAME,
    prefetch: options.prefetch,
    handlers: {
      courseCreated: (event, envelope, tx) => index(event.searchable, envelope, tx),
      courseUpdated: (event, envelope, tx) => index(event.searchable, envelope, tx),
      courseDeleted: async (event, envelope, tx) => {
        await removeRecords.courseDeleted(envelope.userId, event.courseId, envelope.occurredAt ?? new Date(), tx);
      },
      noteImportStarted: (event, envelope, tx) => index(event.searchable, envelope, tx),
      noteTranscribed: (event, envelope, tx) => index(event.searchable, envelope, tx),
      noteImportFailed: (event, envelope, tx) => index(event.searchable, envelope, tx),
      noteUpdated: (event, envelope, tx) => index(event.searchable, envelope, tx),
      noteDeleted: (event, envelope, tx) => remove("note", event.noteId, event.courseId, envelope, tx),
      flashcardSetCreated: (event, envelope, tx) => index(event.searchable, envelope, tx),
      flashcardSetUpdated: (event, envelope, tx) => index(event.searchable, envelope, tx),
      flashcardSetDeleted: (event, envelope, tx) => remove("flashcard_set", event.flashcardSetId, event.courseId, envelope, tx),
      quizCreated: (event, envelope, tx) => index(event.searchable, envelope, tx),
      quizUpdated: (event, envelope, tx) => index(event.searchable, envelope, tx),
      quizDeleted: (event, envelope, tx) => remove("quiz", event.quizId, event.courseId, envelope, tx),
      studyGuideCreated: (event, envelope, tx) => index(event.searchable, envelope, tx),
      studyGuideUpdated: (event, envelope, tx) => index(event.searchable, envelope, tx),
      studyGuideDeleted: (event, envelope, tx) => remove("study_guide", event.studyGuideId, event.courseId, envelope, tx),
      calendarEventCreated: (event, envelope, tx) => index(event.searchable, envelope, tx),
      calendarEventUpdated: (event, envelope, tx) => index(event.searchable, envelope, tx),
      // The delete names no course: a calendar event outlives its course, so its course is not what removes it.
      calendarEventDeleted: (event, envelope, tx) => remove("calendar_event", event.eventId, "", envelope, tx),
      documentUploaded: (event, envelope, tx) => index(event.searchable, envelope, tx),
      documentProcessed: (event, envelope, tx) => index(event.searchable, envelope, tx),
      documentFailed: (event, envelope, tx) => index(event.searchable, envelope, tx),
      documentDeleted: (event, envelope, tx) => remove("document", event.documentId, event.courseId, envelope, tx),
      chatSessionCreated: (event, envelope, tx) => index(event.searchable, envelope, tx),
      chatSessionUpdated: (event, envelope, tx) => index(event.searchable, envelope, tx),
      chatSessionDeleted: (event, envelope, tx) => remove("chat_session", event.sessionId, event.courseId, envelope, tx),
    },
  });
}
