/**
 * What the search service indexes: one record of another service, as that service describes it (the
 * `Searchable` of proto/study/search/v1/indexing.proto), in domain terms.
 */

/** The spec's result types, in the order the filters list them. */
export const RECORD_TYPES = ["note", "flashcard_set", "study_guide", "quiz", "course", "document", "calendar_event", "chat_session"] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

/**
 * The types whose records go with their deleted course (a chat session too: chat deletes a course's sessions). A
 * calendar event outlives its course: the calendar service detaches it and publishes its update, which a tombstone
 * would keep out of search for good.
 */
export const TYPES_DELETED_WITH_COURSE: readonly RecordType[] = RECORD_TYPES.filter((type) => type !== "calendar_event");

export const DIFFICULTIES = ["EASY", "MEDIUM", "HARD"] as const;
export type Difficulty = (typeof DIFFICULTIES)[number];

export const STATUSES = ["COMPLETED", "PROCESSING", "FAILED"] as const;
export type RecordStatus = (typeof STATUSES)[number];

export interface RecordKey {
  type: RecordType;
  id: string;
}

export interface SearchRecord extends RecordKey {
  userId: string;
  courseId?: string;
  title: string;
  /** Ranked after the title: a course's code, professor, semester; a document's tags. */
  keywords: string[];
  description: string;
  content: string;
  difficulty?: Difficulty;
  status?: RecordStatus;
  metadata: Record<string, string>;
  createdAt: Date;
  /** The record's version: a change older than the one applied is ignored. */
  updatedAt: Date;
}

export function isRecordType(value: string): value is RecordType {
  return (RECORD_TYPES as readonly string[]).includes(value);
}

export function recordKeyString(key: RecordKey): string {
  return `${key.type}:${key.id}`;
}
