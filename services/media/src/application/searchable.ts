import type { PayloadOf } from "@study/events/envelope";
import type { Note, TranscriptionStatus } from "../domain/note";

/** The indexing contract's record (study.search.v1.Searchable), as the events and SearchableSourceService carry it. */
export type Searchable = NonNullable<PayloadOf<"noteUpdated">["searchable"]>;

/**
 * study.search.v1.SearchableType.SEARCHABLE_TYPE_NOTE. Use cases may not import @study/contracts (see
 * .dependency-cruiser.cjs), so this is the enum's wire number, which proto never changes: the type accepts only
 * numbers of the enum, and test/unit/searchable.test.ts pins this one to its name.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- the enum's wire number (see above): its module is out of a use case's reach
export const SEARCHABLE_TYPE_NOTE: Searchable["type"] = 1;

/** Search knows three states of a note: a note still being imported is PROCESSING whether or not it started. */
const SEARCH_STATUS: Record<TranscriptionStatus, string> = {
  PENDING: "PROCESSING",
  PROCESSING: "PROCESSING",
  COMPLETED: "COMPLETED",
  FAILED: "FAILED",
};

/**
 * A note as search indexes it: the title; the summary as description; the transcript followed by the user's
 * notes as content, one per line.
 */
export function toSearchable(note: Note): Searchable {
  const metadata: Record<string, string> = { transcriptionStatus: note.transcriptionStatus };
  if (note.metadata.duration !== undefined) metadata.duration = String(note.metadata.duration);
  if (note.metadata.source !== undefined) metadata.sourceType = note.metadata.source;
  return {
    type: SEARCHABLE_TYPE_NOTE,
    id: note.id,
    userId: note.userId,
    courseId: note.courseId,
    title: note.title,
    keywords: [],
    description: note.summary ?? "",
    content: [note.content ?? "", ...note.userNotes.map((userNote) => userNote.content)].filter((text) => text !== "").join("\n"),
    status: SEARCH_STATUS[note.transcriptionStatus],
    metadata,
    createdAt: note.createdAt,
    updatedAt: note.updatedAt,
  };
}
