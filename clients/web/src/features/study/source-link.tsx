import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { formatSecond } from "../../lib/time";
import { fetchNotes, type SourceLink as Source } from "./queries";

/** The note page playing from a second: `/notes/<id>?t=<seconds>` (the note page starts its player there). */
export function notePathAt(noteId: string, startTime: number | null): string {
  return startTime === null ? `/notes/${noteId}` : `/notes/${noteId}?t=${Math.floor(startTime)}`;
}

/** The words of a source link: "from 12:04 in Lecture 3". */
export function sourceText(source: NonNullable<Source>, noteTitle: string | undefined): string {
  if ("documentId" in source) return source.page === null ? "from a course document" : `from page ${source.page} of a course document`;
  const title = noteTitle ?? "your note";
  return source.startTime === null ? `from ${title}` : `from ${formatSecond(source.startTime)} in ${title}`;
}

/**
 * The titles of the user's notes by id, for source links of material made from several notes (the material
 * itself names only its first note). Known titles (`known`) answer at once.
 */
export function useNoteTitles(known: { id: string; title: string } | null | undefined): (noteId: string) => string | undefined {
  const notes = useQuery({ queryKey: ["study", "note-titles"], queryFn: fetchNotes, staleTime: 60_000 });
  return (noteId) => {
    if (known?.id === noteId) return known.title;
    return notes.data?.find((note) => note.id === noteId)?.title;
  };
}

/** Where a generated item came from, as a link that opens the note playing from that second; nothing when unknown. */
export function SourceLink({ source, titleOf }: { source: Source; titleOf: (noteId: string) => string | undefined }) {
  if (!source) return null;
  const text = sourceText(source, "noteId" in source ? titleOf(source.noteId) : undefined);
  if ("documentId" in source) return <p className="source muted">{text}</p>;
  return (
    <p className="source">
      <Link to={notePathAt(source.noteId, source.startTime)}>{text}</Link>
    </p>
  );
}
