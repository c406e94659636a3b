/**
 * A passage of the user's material that an answer may rest on: a transcript segment (with its start time), a user
 * note or a summary of a note, or a page of a document.
 */
export type PassageKind = "segment" | "user_note" | "summary" | "page";
export type SourceType = "note" | "document";

export interface Passage {
  id: string;
  sourceType: SourceType;
  sourceId: string;
  /** The note's or document's title. */
  title: string;
  kind: PassageKind;
  /** Seconds into the recording (segments). */
  startTime: number | null;
  /** The document's page (pages). */
  page: number | null;
  text: string;
  /** Retrieval score, higher is better (comparable within one retrieval only). */
  score: number;
}

export interface Citation {
  marker: number;
  type: SourceType;
  id: string;
  title: string;
  startTime: number | null;
  page: number | null;
  quote: string;
}

/** "12:34" (or "1:02:03") for a start time in seconds. */
export function timestamp(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/** Where a passage sits, for a reader: "Lecture 3, 12:34", "Lecture 3, your note at 12:34" or "Textbook, p. 4". */
export function placeOf(passage: Pick<Passage, "title" | "startTime" | "page" | "kind">): string {
  if (passage.kind === "user_note")
    return passage.startTime !== null ? `${passage.title}, your note at ${timestamp(passage.startTime)}` : `${passage.title}, your note`;
  if (passage.startTime !== null) return `${passage.title}, ${timestamp(passage.startTime)}`;
  if (passage.page !== null) return `${passage.title}, p. ${passage.page}`;
  if (passage.kind === "summary") return `${passage.title}, summary`;
  return passage.title;
}
