import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams } from "react-router";
import { ErrorMessage, Loading } from "../../components/page-state";
import { CourseForm } from "./course-form";
import { CourseNotFound } from "./not-found";
import { courseKeys, createCourse, fetchCourse, isNotFound, updateCourse, type CourseFields } from "./queries";

/** The fields without the colour (left as it is by the update). */
function withoutColor(fields: CourseFields): Partial<CourseFields> {
  const rest: Partial<CourseFields> = { ...fields };
  delete rest.color;
  return rest;
}

/** /courses/new — a new course; then its page. */
export function NewCoursePage() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const create = useMutation({
    mutationFn: (fields: CourseFields) => createCourse(fields),
    onSuccess: async (course) => {
      queryClient.setQueryData(courseKeys.course(course.id), course);
      await queryClient.invalidateQueries({ queryKey: courseKeys.list });
      await queryClient.invalidateQueries({ queryKey: ["study"] });
      await navigate(`/courses/${course.id}`);
    },
  });
  return (
    <>
      <p>
        <Link to="/courses">Your courses</Link>
      </p>
      <h1>New course</h1>
      <CourseForm
        submitLabel="Create course"
        pendingLabel="Creating the course…"
        isPending={create.isPending}
        error={create.error}
        onSubmit={(fields) => create.mutate(fields)}
      />
    </>
  );
}

/** /courses/:courseId/edit — every field of the course; then back to its page. */
export function EditCoursePage() {
  const { courseId = "" } = useParams();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const course = useQuery({ queryKey: courseKeys.course(courseId), queryFn: () => fetchCourse(courseId) });
  const update = useMutation({
    mutationFn: (fields: Partial<CourseFields>) => updateCourse(courseId, fields),
    onSuccess: async (saved) => {
      queryClient.setQueryData(courseKeys.course(courseId), saved);
      await queryClient.invalidateQueries({ queryKey: courseKeys.list });
      await queryClient.invalidateQueries({ queryKey: ["study"] });
      await queryClient.invalidateQueries({ queryKey: ["notes"] });
      await navigate(`/courses/${courseId}`);
    },
  });
  if (isNotFound(course.error)) return <CourseNotFound />;
  return (
    <>
      <p>
        <Link to={`/courses/${courseId}`}>{course.data ? course.data.name : "Back to the course"}</Link>
      </p>
      <h1>Edit course</h1>
      {course.isPending ? (
        <Loading label="Loading the course…" />
      ) : course.error || !course.data ? (
        <ErrorMessage error={course.error} onRetry={() => void course.refetch()} />
      ) : (
        <CourseForm
          key={course.data.id}
          course={course.data}
          submitLabel="Save changes"
          pendingLabel="Saving…"
          isPending={update.isPending}
          error={update.error}
          onSubmit={(fields, colorChanged) => update.mutate(colorChanged ? fields : withoutColor(fields))}
        />
      )}
    </>
  );
}
