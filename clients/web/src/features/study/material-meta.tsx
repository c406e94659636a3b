import { Link, useLocation } from "react-router";
import { formatDate } from "../../lib/time";
import { DIFFICULTY_LABEL, type Difficulty } from "./queries";

interface MaterialMetaProps {
  course: { id: string; name: string } | null;
  note: { id: string; title: string } | null;
  noteCount: number;
  difficulty: Difficulty;
  createdAt: string;
  extra?: string;
}

/** One line about a piece of material: course, source notes, level, date. */
export function MaterialMeta({ course, note, noteCount, difficulty, createdAt, extra }: MaterialMetaProps) {
  const others = noteCount - (note ? 1 : 0);
  return (
    <p className="muted meta">
      {[course?.name, extra, `${DIFFICULTY_LABEL[difficulty]} level`, `made ${formatDate(createdAt)}`].filter(Boolean).join(" · ")}
      {note && (
        <>
          {" · from "}
          <Link to={`/notes/${note.id}`}>{note.title}</Link>
          {others > 0 && ` and ${others} more ${others === 1 ? "note" : "notes"}`}
        </>
      )}
    </p>
  );
}

/** The API's word on a generation that returned existing material ("already existed"), passed along by the form. */
export function GenerationNotice() {
  const location = useLocation();
  const state: unknown = location.state;
  const message = typeof state === "object" && state !== null && "generated" in state && typeof state.generated === "string" ? state.generated : null;
  if (!message) return null;
  return (
    <p className="success-message" role="status">
      {message}
    </p>
  );
}
