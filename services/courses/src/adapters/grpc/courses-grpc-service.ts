import { courses as api } from "@study/contracts";
import { bindUnaryHandlers, pageInfo } from "@study/grpc";
import type { Logger } from "@study/platform";
import type { BatchGetCourses } from "../../application/batch-get-courses";
import { courseSummary } from "../../application/course-events";
import type { CreateCourse } from "../../application/create-course";
import type { DeleteCourse } from "../../application/delete-course";
import type { GetCourse } from "../../application/get-course";
import type { ListCourses } from "../../application/list-courses";
import type { UpdateCourse } from "../../application/update-course";
import type { Course, OptionalCourseField } from "../../domain/course";

export interface CourseUseCases {
  createCourse: CreateCourse;
  getCourse: GetCourse;
  listCourses: ListCourses;
  updateCourse: UpdateCourse;
  deleteCourse: DeleteCourse;
  batchGetCourses: BatchGetCourses;
}

export function toProtoCourse(course: Course): api.Course {
  return {
    id: course.id,
    userId: course.userId,
    name: course.name,
    code: course.code ?? undefined,
    color: course.color ?? undefined,
    emoji: course.emoji ?? undefined,
    professor: course.professor ?? undefined,
    semester: course.semester ?? undefined,
    description: course.description ?? undefined,
    createdAt: course.createdAt,
    updatedAt: course.updatedAt,
  };
}

const nullable = (value: string | undefined) => value ?? null;

export function coursesGrpcService(useCases: CourseUseCases, logger: Logger): api.CoursesServiceServer {
  return bindUnaryHandlers(logger, api.CoursesServiceService, {
    createCourse: async (request) => {
      const course = await useCases.createCourse.execute(request.userId, {
        name: request.name,
        code: nullable(request.code),
        color: nullable(request.color),
        emoji: nullable(request.emoji),
        professor: nullable(request.professor),
        semester: nullable(request.semester),
        description: nullable(request.description),
      });
      return { course: toProtoCourse(course) };
    },
    getCourse: async (request) => ({
      course: toProtoCourse(await useCases.getCourse.execute(request.userId, request.courseId)),
    }),
    listCourses: async (request) => {
      const page = await useCases.listCourses.execute(request.userId, {
        limit: request.page?.limit,
        offset: request.page?.offset,
        semester: request.semester,
      });
      return {
        courses: page.courses.map(toProtoCourse),
        page: pageInfo({ limit: page.limit, offset: page.offset, total: page.total, count: page.courses.length }),
      };
    },
    updateCourse: async (request) => {
      const { name, code, color, emoji, professor, semester, description } = request;
      const course = await useCases.updateCourse.execute(request.userId, request.courseId, {
        set: { name, code, color, emoji, professor, semester, description },
        clear: request.clearFields as OptionalCourseField[],
      });
      return { course: toProtoCourse(course) };
    },
    deleteCourse: async (request) => {
      await useCases.deleteCourse.execute(request.userId, request.courseId);
      return {};
    },
    checkCourseOwnership: async (request) => ({
      course: courseSummary(await useCases.getCourse.execute(request.userId, request.courseId)),
    }),
    batchGetCourses: async (request) => ({
      courses: (await useCases.batchGetCourses.execute(request.userId, request.courseIds)).map(courseSummary),
    }),
  });
}
