import { createHash } from "node:crypto";
import type { SourceNote } from "./study-material";

export type MaterialKind = "flashcards" | "quiz" | "study-guide";

/**
 * The deduplication key of a generation: the kind and the content of the notes (their ids, transcripts and text
 * user notes, in a canonical order). The spec keeps one set (quiz, guide) per note content, per user and course:
 * a second request over unchanged notes returns the existing one whatever its options (difficulty, count);
 * a changed transcript or user note yields a new key, so it is generated anew. Titles are left out: renaming a
 * note does not make its material stale.
 */
export function generationFingerprint(kind: MaterialKind, notes: readonly SourceNote[]): string {
  const canonicalNotes = [...notes]
    .sort((a, b) => (a.noteId < b.noteId ? -1 : a.noteId > b.noteId ? 1 : 0))
    .map((note) => ({
      noteId: note.noteId,
      transcript: note.transcript,
      userNotes: note.userNotes
        .filter((entry) => entry.contentType === "text")
        .map((entry) => [entry.timestamp, entry.content])
        .sort((a, b) => Number(a[0]) - Number(b[0]) || String(a[1]).localeCompare(String(b[1]))),
    }));
  const canonical = JSON.stringify({ kind, notes: canonicalNotes });
  return createHash("sha256").update(canonical).digest("hex");
}
