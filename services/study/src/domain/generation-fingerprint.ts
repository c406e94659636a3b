import { createHash } from "node:crypto";
import type { Difficulty, SourceNote } from "./study-material";

export type MaterialKind = "flashcards" | "quiz" | "study-guide";

/**
 * The deduplication key of a generation: the kind, the options that shape the output, and the content of the
 * notes (their ids, transcripts and text user notes, in a canonical order). The same request over unchanged
 * notes yields the same key; a changed transcript or user note yields a new one, so it is generated anew.
 * Titles are left out: renaming a note does not make its material stale.
 */
export function generationFingerprint(
  kind: MaterialKind,
  notes: readonly SourceNote[],
  options: { difficulty: Difficulty; count?: number },
): string {
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
  const canonical = JSON.stringify({ kind, difficulty: options.difficulty, count: options.count ?? null, notes: canonicalNotes });
  return createHash("sha256").update(canonical).digest("hex");
}
