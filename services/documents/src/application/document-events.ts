import { createEvent, type EventEnvelope } from "@study/events/envelope";
import type { Document } from "../domain/document";
import { toSearchable } from "./searchable";

export const SOURCE = "documents";

/** Work for the worker (and the PROCESSING entry in search, and the "processing started" notification). */
export const documentUploaded = (document: Document): EventEnvelope =>
  createEvent(SOURCE, document.userId, {
    $case: "documentUploaded",
    value: {
      documentId: document.id,
      courseId: document.courseId,
      title: document.title,
      documentType: document.documentType,
      format: document.format,
      storageKey: document.storageKey,
      searchable: toSearchable(document),
    },
  });

export const documentProcessed = (document: Document): EventEnvelope =>
  createEvent(SOURCE, document.userId, {
    $case: "documentProcessed",
    value: {
      documentId: document.id,
      courseId: document.courseId,
      title: document.title,
      documentType: document.documentType,
      pageCount: document.pageCount,
      wordCount: document.wordCount,
      calendarEventsCreated: document.calendarEventsCreated ?? undefined,
      searchable: toSearchable(document),
    },
  });

export const documentFailed = (document: Document): EventEnvelope =>
  createEvent(SOURCE, document.userId, {
    $case: "documentFailed",
    value: {
      documentId: document.id,
      courseId: document.courseId,
      title: document.title,
      documentType: document.documentType,
      errorMessage: document.failureReason ?? "",
      searchable: toSearchable(document),
    },
  });

export const documentDeleted = (document: Document): EventEnvelope =>
  createEvent(SOURCE, document.userId, {
    $case: "documentDeleted",
    value: { documentId: document.id, courseId: document.courseId, title: document.title, storageKey: document.storageKey },
  });

export const syllabusFailed = (userId: string, failure: { courseId: string; fileName: string; errorMessage: string }): EventEnvelope =>
  createEvent(SOURCE, userId, { $case: "syllabusFailed", value: failure });
