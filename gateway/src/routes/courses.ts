import type { courses as api } from "@study/contracts";
import { Router } from "express";
import { z } from "zod";
import { currentAuth } from "../auth/session";
import type { ServiceClients } from "../clients";
import { sendData, sendMessage } from "../http/envelope";
import { intParam } from "../http/query";
import { parse } from "../http/validate";

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
/** Optional fields: a string sets the field, null clears it (PATCH), absent leaves it as it is. */
const courseFields = {
  code: text(50).nullable().optional(),
  color: text(50).nullable().optional(),
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
  offset: intParam(0, Number.MAX_SAFE_INTEGER, 0),
  semester: z.string().max(100).optional(),
});

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

export function coursesRouter(clients: ServiceClients): Router {
  const router = Router();

  router.get("/", async (req, res) => {
    const query = parse(listQuery, req.query, "query");
    const { courses, page } = await clients.courses.listCourses({
      userId: currentAuth(res).user.id,
      page: { limit: query.limit, offset: query.offset },
      semester: query.semester,
    });
    sendData(res, 200, { courses: courses.map(courseJson), pagination: page }, "Courses retrieved");
  });

  router.post("/", async (req, res) => {
    const body = parse(createBody, req.body, "course");
    const { course } = await clients.courses.createCourse({
      userId: currentAuth(res).user.id,
      name: body.name,
      code: optional(body.code),
      color: optional(body.color),
      emoji: optional(body.emoji),
      professor: optional(body.professor),
      semester: optional(body.semester),
      description: optional(body.description),
    });
    sendData(res, 201, courseJson(course!), "Course created");
  });

  router.get("/:id", async (req, res) => {
    const { course } = await clients.courses.getCourse({ userId: currentAuth(res).user.id, courseId: req.params.id });
    sendData(res, 200, courseJson(course!), "Course retrieved");
  });

  router.patch("/:id", async (req, res) => {
    const body = parse(updateBody, req.body, "course");
    const cleared = Object.entries(body).filter(([, value]) => value === null).map(([field]) => field);
    const { course } = await clients.courses.updateCourse({
      userId: currentAuth(res).user.id,
      courseId: req.params.id,
      name: body.name,
      code: optional(body.code),
      color: optional(body.color),
      emoji: optional(body.emoji),
      professor: optional(body.professor),
      semester: optional(body.semester),
      description: optional(body.description),
      clearFields: cleared,
    });
    sendData(res, 200, courseJson(course!), "Course updated");
  });

  router.delete("/:id", async (req, res) => {
    await clients.courses.deleteCourse({ userId: currentAuth(res).user.id, courseId: req.params.id });
    sendMessage(res, "Course deleted");
  });

  return router;
}
