import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";
import { Empty, QueryState } from "../../components/page-state";
import { api, data } from "../../lib/api";

export function CoursesPage() {
  const courses = useQuery({ queryKey: ["courses"], queryFn: () => data(api.GET("/api/courses", { params: { query: { limit: 100 } } })) });
  return (
    <>
      <h1>Your courses</h1>
      <QueryState query={courses} label="Loading your courses…">
        {({ courses: list }) =>
          list.length === 0 ? (
            <Empty>
              <p>No courses yet.</p>
            </Empty>
          ) : (
            <ul className="list">
              {list.map((course) => (
                <li key={course.id}>
                  <Link to={`/courses/${course.id}`}>{course.name}</Link>
                </li>
              ))}
            </ul>
          )
        }
      </QueryState>
    </>
  );
}
