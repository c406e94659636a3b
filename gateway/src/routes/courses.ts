import type { courses as api } from "@study/contracts";
import { required } from "@study/platform";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, messageEnvelope, route, type RouteSpec } from "../http/api";
import { idParams } from "../http/params";
import { sendData, sendMessage } from "../http/envelope";
import { intParam, MAX_INT32 } from "../http/query";
import { paginationJson, paginationSchema } from "./shared/mappers";

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
/** Optional fields: a string sets the field, null clears it (PATCH), absent leaves it as it is. */
const courseFields = {
  code: text(50).nullable().optional(),
  color: text(50).nullable().optional().describe("Hex code (#RRGGBB) or a color name"),
  emoji: text(16).nullable().optional(),
  professor: text(255).nullable().optional(),
  semester: text(100).nullable().optional(),
  description: text(2000).nullable().optional(),
};
const createBody = z.strictObject({ name: z.string().trim().min(1, "is required").max(255), ...courseFields });
const updateBody = z
  .strictObject({ name: z.string().trim().min(1, "must not be empty").max(255).optional(), ...courseFields })
  .refine((body) => Object.keys(body).length > 0, { message: "must change at least one field" });
const listQuery = z.object({
  limit: intParam(1, 100, 20),
  offset: intParam(0, MAX_INT32, 0),
  semester: z.string().max(100).optional(),
});

export const courseSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    code: z.string().nullable(),
    color: z.string().nullable(),
    emoji: z.string().nullable(),
    professor: z.string().nullable(),
    semester: z.string().nullable(),
    description: z.string().nullable(),
    userId: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "Course" });

/** The REST shape of a course: every field present, null when unset. */
export function courseJson(course: api.Course) {
  return {
    id: course.id,
    name: course.name,
    code: course.code ?? null,
    color: course.color ?? null,
    emoji: course.emoji ?? null,
    professor: course.professor ?? null,
    semester: course.semester ?? null,
    description: course.description ?? null,
    userId: course.userId,
    createdAt: course.createdAt,
    updatedAt: course.updatedAt,
  };
}

const optional = (value: string | null | undefined) => (value === null ? undefined : value);
const notFound = { description: "No such course of the caller (NOT_FOUND)", schema: errorEnvelope };
const tag = "Courses";

export function courseRoutes(clients: ServiceClients): RouteSpec[] {
  return [
    route({
      method: "get",
      path: "/api/courses",
      tag,
      summary: "List the caller's courses, newest first",
      auth: true,
      query: listQuery,
      responses: {
        200: { description: "A page of courses", schema: dataEnvelope(z.object({ courses: z.array(courseSchema), pagination: paginationSchema })) },
      },
      async handler({ userId, query, res }) {
        const { courses, page } = await clients.courses.listCourses({
          userId,
          page: { limit: query.limit, offset: query.offset },
          semester: query.semester,
        });
        sendData(res, 200, { courses: courses.map(courseJson), pagination: paginationJson(page, "page in ListCourses reply") }, "Courses retrieved");
      },
    }),
    route({
      method: "post",
      path: "/api/courses",
      tag,
      summary: "Create a course",
      auth: true,
      body: createBody,
      responses: { 201: { description: "The new course", schema: dataEnvelope(courseSchema) } },
      async handler({ userId, body, res }) {
        const { course } = await clients.courses.createCourse({
          userId,
          name: body.name,
          code: optional(body.code),
          color: optional(body.color),
          emoji: optional(body.emoji),
          professor: optional(body.professor),
          semester: optional(body.semester),
          description: optional(body.description),
        });
        sendData(res, 201, courseJson(required(course, "course in CreateCourse reply")), "Course created");
      },
    }),
    route({
      method: "get",
      path: "/api/courses/:id",
      tag,
      summary: "Get one of the caller's courses",
      auth: true,
      params: idParams,
      responses: { 200: { description: "The course", schema: dataEnvelope(courseSchema) }, 404: notFound },
      async handler({ userId, params, res }) {
        const { course } = await clients.courses.getCourse({ userId, courseId: params.id });
        sendData(res, 200, courseJson(required(course, "course in GetCourse reply")), "Course retrieved");
      },
    }),
    route({
      method: "patch",
      path: "/api/courses/:id",
      tag,
      summary: "Change some fields of a course (null clears an optional field)",
      auth: true,
      params: idParams,
      body: updateBody,
      responses: { 200: { description: "The updated course", schema: dataEnvelope(courseSchema) }, 404: notFound },
      async handler({ userId, params, body, res }) {
        const cleared = Object.entries(body)
          .filter(([, value]) => value === null)
          .map(([field]) => field);
        const { course } = await clients.courses.updateCourse({
          userId,
          courseId: params.id,
          name: body.name,
          code: optional(body.code),
          color: optional(body.color),
          emoji: optional(body.emoji),
          professor: optional(body.professor),
          semester: optional(body.semester),
          description: optional(body.description),
          clearFields: cleared,
        });
        sendData(res, 200, courseJson(required(course, "course in UpdateCourse reply")), "Course updated");
      },
    }),
    route({
      method: "delete",
      path: "/api/courses/:id",
      tag,
      summary: "Delete a course (its notes and materials are removed in the background)",
      auth: true,
      params: idParams,
      responses: { 200: { description: "Deleted", schema: messageEnvelope }, 404: notFound },
      async handler({ userId, params, res }) {
        await clients.courses.deleteCourse({ userId, courseId: params.id });
        sendMessage(res, "Course deleted");
      },
    }),
  ];
}
