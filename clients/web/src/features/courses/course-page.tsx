import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "react-router";
import { Confirm } from "../../components/confirm";
import { Empty, ErrorMessage, Loading, QueryState } from "../../components/page-state";
import { formatDate, formatSecond } from "../../lib/time";
import { ColorMark } from "./courses-page";
import { CourseNotFound } from "./not-found";
import { courseKeys, deleteCourse, fetchCourse, fetchCourseNotes, isNotFound, type Course, type CourseNote } from "./queries";
import "./courses.css";

const TRANSCRIPTION: Record<CourseNote["transcriptionStatus"], string | undefined> = {
  PENDING: "Waiting to be transcribed",
  PROCESSING: "Being transcribed",
  COMPLETED: undefined,
  FAILED: "Import failed",
};

function Details({ course }: { course: Course }) {
  const facts: [string, string | null][] = [
    ["Code", course.code],
    ["Professor", course.professor],
    ["Semester", course.semester],
    ["Colour", course.color],
    ["Emoji", course.emoji],
  ];
  const known = facts.filter((fact): fact is [string, string] => Boolean(fact[1]));
  return (
    <section className="card" aria-label="Course details">
      {known.length > 0 ? (
        <dl className="course-details">
          {known.map(([label, value]) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>
                {label === "Colour" && <ColorMark color={value} />}
                {value}
              </dd>
            </div>
          ))}
        </dl>
      ) : (
        <p className="muted">No code, professor or semester yet: edit the course to add them.</p>
      )}
      {course.description && <p className="course-description">{course.description}</p>}
      <p className="muted">Created {formatDate(course.createdAt)}</p>
    </section>
  );
}

function Notes({ courseId }: { courseId: string }) {
  const notes = useQuery({ queryKey: courseKeys.notes(courseId), queryFn: () => fetchCourseNotes(courseId) });
  return (
    <section aria-labelledby="course-notes">
      <div className="row spread">
        <h2 id="course-notes">Notes</h2>
        <Link className="button primary" to={`/courses/${courseId}/notes/new`}>
          Add a note
        </Link>
      </div>
      <QueryState query={notes} label="Loading the notes…">
        {(list) =>
          list.length === 0 ? (
            <Empty>
              <p>No notes yet. Add a lecture recording, an audio link or a video link, and it is transcribed for you.</p>
            </Empty>
          ) : (
            <ul className="list">
              {list.map((note) => {
                const status = TRANSCRIPTION[note.transcriptionStatus];
                const duration = note.metadata.duration;
                return (
                  <li key={note.id}>
                    <Link to={`/notes/${note.id}`}>{note.title}</Link>
                    <p className="muted note-facts">
                      {[formatDate(note.createdAt), duration && duration >= 1 ? formatSecond(duration) : undefined, status]
                        .filter(Boolean)
                        .join(" · ")}
                    </p>
                  </li>
                );
              })}
            </ul>
          )
        }
      </QueryState>
    </section>
  );
}

function DeleteCourse({ course }: { course: Course }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const remove = useMutation({
    mutationFn: () => deleteCourse(course.id),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: courseKeys.course(course.id) });
      await navigate("/courses", { replace: true });
      // Its notes, their imports and what was generated from them go with it.
      await Promise.all([courseKeys.list, ["notes"], ["jobs"], ["study"]].map((queryKey) => queryClient.invalidateQueries({ queryKey })));
    },
  });
  return (
    <>
      <Confirm
        trigger="Delete course"
        title={`Delete “${course.name}”?`}
        confirm="Delete course"
        onConfirm={() => remove.mutate()}
        isDisabled={remove.isPending}
      >
        <p>The course, its notes and everything generated from them are deleted. This cannot be undone.</p>
      </Confirm>
      {remove.error && <ErrorMessage error={remove.error} />}
    </>
  );
}

/** /courses/:courseId — a course's details and its notes. */
export function CoursePage() {
  const { courseId = "" } = useParams();
  const course = useQuery({ queryKey: courseKeys.course(courseId), queryFn: () => fetchCourse(courseId) });
  if (isNotFound(course.error)) return <CourseNotFound />;
  if (course.isPending) return <Loading label="Loading the course…" />;
  if (course.error || !course.data) return <ErrorMessage error={course.error} onRetry={() => void course.refetch()} />;
  const { data } = course;
  return (
    <>
      <p>
        <Link to="/courses">Your courses</Link>
      </p>
      <h1>
        {data.emoji && <span aria-hidden="true">{data.emoji} </span>}
        {data.name}
      </h1>
      <Details course={data} />
      <div className="actions course-actions">
        <Link className="button secondary" to={`/courses/${courseId}/edit`}>
          Edit course
        </Link>
        <DeleteCourse course={data} />
      </div>
      <Notes courseId={courseId} />
    </>
  );
}
