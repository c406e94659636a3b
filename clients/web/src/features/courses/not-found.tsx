import { Link } from "react-router";

/** Another user's course, or one that no longer exists: the API answers 404 for both. */
export function CourseNotFound() {
  return (
    <>
      <h1>Course not found</h1>
      <p>
        There is no such course among yours: it may have been deleted, or the link is wrong. <Link to="/courses">Go to your courses</Link>.
      </p>
    </>
  );
}
