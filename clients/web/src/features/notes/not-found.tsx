import { Link } from "react-router";

/** Another user's note or course, or one that no longer exists: the API answers 404 for both. */
export function NotFoundState({ what }: { what: "note" | "course" }) {
  return (
    <>
      <h1>{what === "note" ? "Note not found" : "Course not found"}</h1>
      <p>
        There is no such {what} among yours: it may have been deleted, or the link is wrong. <Link to="/courses">Go to your courses</Link>.
      </p>
    </>
  );
}
