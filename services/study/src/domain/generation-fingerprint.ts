import { createHash } from "node:crypto";
import type { SourceDocument, SourceNote } from "./study-material";

export type MaterialKind = "flashcards" | "quiz" | "study-guide";

/**
 * The deduplication key of a generation: the kind and the content of the sources (the notes' ids, transcripts
 * and text user notes; the documents' ids and page texts; in a canonical order), and the focus areas (trimmed,
 * case-folded, as a set), which change what is drawn from the same text. The spec keeps one set (quiz, guide)
 * per source content, per user and course: a second request over unchanged sources returns the existing one
 * whatever its other options (difficulty, count); a changed transcript, user note or page yields a new key, so
 * it is generated anew. Titles are left out: renaming a note or document does not make its material stale.
 * Documents and focus areas enter the key only when given, so a notes-only key is what it always was.
 */
export function generationFingerprint(
  kind: MaterialKind,
  notes: readonly SourceNote[],
  more: { documents?: readonly SourceDocument[]; focusAreas?: readonly string[] } = {},
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
  const documents = [...(more.documents ?? [])]
    .sort((a, b) => (a.documentId < b.documentId ? -1 : a.documentId > b.documentId ? 1 : 0))
    .map((document) => ({
      documentId: document.documentId,
      pages: [...document.pages].sort((a, b) => a.number - b.number).map((page) => [page.number, page.text]),
    }));
  const focusAreas = [...new Set((more.focusAreas ?? []).map((area) => area.trim().toLowerCase()))].sort();
  const canonical = JSON.stringify({
    kind,
    notes: canonicalNotes,
    ...(documents.length ? { documents } : {}),
    ...(focusAreas.length ? { focusAreas } : {}),
  });
  return createHash("sha256").update(canonical).digest("hex");
}
