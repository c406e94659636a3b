import { useInfiniteQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { Button } from "../../components/fields";
import { Empty, ErrorMessage, QueryState } from "../../components/page-state";
import { COURSES_PAGE, courseKeys, fetchCoursesPage, type Course } from "./queries";
import "./courses.css";

/** What sets a course apart in a list: its code, semester and professor, when known. */
export function courseFacts(course: Pick<Course, "code" | "semester" | "professor">): string {
  return [course.code, course.semester, course.professor].filter(Boolean).join(" · ");
}

/** A course's colour as a stripe (decoration: the name says which course it is). */
export function ColorMark({ color }: { color: string | null }) {
  return <span className="color-mark" aria-hidden="true" style={color ? { background: color } : undefined} />;
}

/** /courses — the user's courses, newest first, and the way to add one. */
export function CoursesPage() {
  const courses = useInfiniteQuery({
    queryKey: courseKeys.list,
    queryFn: ({ pageParam }) => fetchCoursesPage(pageParam),
    initialPageParam: 0,
    getNextPageParam: (last) => (last.pagination.hasMore ? last.pagination.offset + COURSES_PAGE : undefined),
  });
  return (
    <>
      <div className="row spread">
        <h1>Your courses</h1>
        <Link className="button primary" to="/courses/new">
          New course
        </Link>
      </div>
      <QueryState query={courses} label="Loading your courses…">
        {({ pages }) => {
          const list = pages.flatMap((page) => page.courses);
          if (list.length === 0) {
            return (
              <Empty>
                <p>No courses yet. A course holds the notes of its lectures and what you study from them.</p>
                <Link to="/courses/new">Create your first course</Link>
              </Empty>
            );
          }
          return (
            <>
              <ul className="list course-list">
                {list.map((course) => (
                  <li key={course.id} className="course-item">
                    <ColorMark color={course.color} />
                    <div>
                      <Link to={`/courses/${course.id}`} className="course-name">
                        {course.emoji && <span aria-hidden="true">{course.emoji} </span>}
                        {course.name}
                      </Link>
                      {courseFacts(course) && <p className="muted course-facts">{courseFacts(course)}</p>}
                    </div>
                  </li>
                ))}
              </ul>
              {courses.isFetchNextPageError && <ErrorMessage error={courses.error} />}
              {courses.hasNextPage && (
                <div className="actions">
                  <Button variant="secondary" onPress={() => void courses.fetchNextPage()} isDisabled={courses.isFetchingNextPage}>
                    {courses.isFetchingNextPage ? "Loading more courses…" : "Show more courses"}
                  </Button>
                </div>
              )}
            </>
          );
        }}
      </QueryState>
    </>
  );
}
