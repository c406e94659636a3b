// This module is the `@study/events/envelope` entry point that use cases import to build their events: it loads
// the event messages and the trace context only, never the broker client or the database.
import * as events from "@study/contracts/events";
import { currentTraceHeaders } from "@study/platform/trace-context";
import { v7 as uuidv7 } from "uuid";

export type EventEnvelope = events.EventEnvelope;
export type EventPayload = NonNullable<EventEnvelope["payload"]>;
export type EventCase = EventPayload["$case"];
export type PayloadOf<C extends EventCase> = Extract<EventPayload, { $case: C }>["value"];

/**
 * Routing key of every event. `satisfies` makes the build fail when proto/ gains an event without one.
 * Form: <producer>.<entity>.<verb>.v<major>.
 */
export const EVENT_TYPES = {
  userRegistered: "identity.user.registered.v1",
  courseCreated: "courses.course.created.v1",
  courseUpdated: "courses.course.updated.v1",
  courseDeleted: "courses.course.deleted.v1",
  noteImportStarted: "media.note.import_started.v1",
  noteTranscribed: "media.note.transcribed.v1",
  noteImportFailed: "media.note.import_failed.v1",
  noteUpdated: "media.note.updated.v1",
  noteDeleted: "media.note.deleted.v1",
  importRequested: "media.import.requested.v1",
  flashcardSetCreated: "study.flashcard_set.created.v1",
  flashcardSetDeleted: "study.flashcard_set.deleted.v1",
  quizCreated: "study.quiz.created.v1",
  quizDeleted: "study.quiz.deleted.v1",
  studyGuideCreated: "study.study_guide.created.v1",
  studyGuideDeleted: "study.study_guide.deleted.v1",
  flashcardSetUpdated: "study.flashcard_set.updated.v1",
  quizUpdated: "study.quiz.updated.v1",
  studyGuideUpdated: "study.study_guide.updated.v1",
  calendarEventCreated: "calendar.event.created.v1",
  calendarEventUpdated: "calendar.event.updated.v1",
  calendarEventDeleted: "calendar.event.deleted.v1",
  calendarReminderDue: "calendar.event.reminder_due.v1",
  documentUploaded: "documents.document.uploaded.v1",
  documentProcessed: "documents.document.processed.v1",
  documentFailed: "documents.document.failed.v1",
  documentDeleted: "documents.document.deleted.v1",
  syllabusFailed: "documents.syllabus.failed.v1",
  referralCodeUsed: "billing.referral.code_used.v1",
  referralTrialStarted: "billing.referral.trial_started.v1",
  rewardProcessed: "billing.reward.processed.v1",
  withdrawalRequested: "billing.withdrawal.requested.v1",
  withdrawalStatusChanged: "billing.withdrawal.status_changed.v1",
  processorEventReceived: "billing.processor_event.received.v1",
  entitlementChanged: "billing.entitlement.changed.v1",
  chatSessionCreated: "chat.session.created.v1",
  chatSessionUpdated: "chat.session.updated.v1",
  chatSessionDeleted: "chat.session.deleted.v1",
} as const satisfies Record<EventCase, string>;

/** Builds an envelope for the current operation: fresh time-ordered id, now, and the active trace context. */
export function createEvent(source: string, userId: string, payload: EventPayload): EventEnvelope {
  const { traceparent, tracestate } = currentTraceHeaders();
  return {
    id: uuidv7(),
    type: EVENT_TYPES[payload.$case],
    source,
    occurredAt: new Date(),
    userId,
    traceparent,
    tracestate,
    payload,
  };
}

export const encodeEnvelope = (envelope: EventEnvelope): Buffer => Buffer.from(events.EventEnvelope.encode(envelope).finish());
export const decodeEnvelope = (bytes: Uint8Array): EventEnvelope => events.EventEnvelope.decode(bytes);
export const envelopeToJson = (envelope: EventEnvelope): unknown => events.EventEnvelope.toJSON(envelope);
export const envelopeFromJson = (json: unknown): EventEnvelope => events.EventEnvelope.fromJSON(json);
