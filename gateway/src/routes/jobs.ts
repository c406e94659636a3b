import { traceMetadata } from "@study/grpc";
import { media as api, type common } from "@study/contracts";
import type { Logger } from "@study/platform";
import { required } from "@study/platform";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, messageEnvelope, route, type RouteSpec } from "../http/api";
import { sendData, sendMessage } from "../http/envelope";
import { intParam, MAX_INT32 } from "../http/query";
import { openEventStream, serverStreamReader } from "../http/sse";
import { courseEmbedSchema, courseJson, coursesById, restEnum } from "./shared/mappers";
import { jobStatus, transcriptionStatus } from "./shared/media-json";

const jobSource = restEnum(api.JobSource, "JOB_SOURCE");
const progressStage = restEnum(api.ProgressStage, "PROGRESS_STAGE");
const sortField = restEnum(api.JobSortField, "JOB_SORT_FIELD", "camel");
const sortOrder = restEnum(api.SortOrder, "SORT_ORDER", "lower");

const listQuery = z.object({
  status: z.enum(jobStatus.names, { message: `must be one of ${jobStatus.names.join(", ")}` }).optional(),
  source: z.enum(jobSource.names, { message: `must be one of ${jobSource.names.join(", ")}` }).optional(),
  limit: intParam(1, 100, 20),
  offset: intParam(0, MAX_INT32, 0),
  sortBy: z.enum(sortField.names, { message: `must be one of ${sortField.names.join(", ")}` }).default("createdAt"),
  sortOrder: z.enum(sortOrder.names, { message: "must be asc or desc" }).default("desc"),
});
/** The spec answers a malformed job id with 400 (unlike notes and courses, where it is 404). */
// Jobs answer 400 for a malformed id (spec: "400 invalid id"), unlike notes and courses.
const jobIdParams = z.object({ id: z.uuid("must be a job id (UUID)") });

const nullableString = z.string().nullable();
const jobStatusSchema = z.enum(jobStatus.names);
const jobNoteSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    status: z.enum(transcriptionStatus.names).describe("The note's transcriptionStatus"),
    duration: z.number().nullable().describe("Seconds"),
    fileSize: z.number().int().nullable().describe("Bytes"),
    mimeType: nullableString,
    summary: nullableString,
    date: z.iso.date().describe("The day the note was created (UTC)"),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    course: courseEmbedSchema.nullable(),
  })
  .meta({ id: "JobNote" });
const jobSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    status: jobStatusSchema,
    progress: z.number().int().min(0).max(100),
    source: z.enum(jobSource.names),
    errorMessage: nullableString,
    userId: z.string(),
    noteId: nullableString.describe("null once the note was deleted"),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    completedAt: z.iso.datetime().nullable(),
    note: jobNoteSchema.nullable(),
  })
  .meta({ id: "ImportJob" });
const recentJobSchema = jobSchema.pick({ id: true, title: true, status: true, progress: true, source: true, createdAt: true, completedAt: true });
const countsSchema = z.object({
  pending: z.number().int(),
  inProgress: z.number().int(),
  completed: z.number().int(),
  failed: z.number().int(),
  cancelled: z.number().int(),
});
const statsSchema = z.object({
  total: z.number().int(),
  byStatus: countsSchema,
  successRate: z.number().describe("Percent of finished imports (completed + failed) that completed"),
  recentJobs: z.array(recentJobSchema),
  queueStats: z.object({
    waiting: z.number().int(),
    active: z.number().int(),
    completed: z.number().int(),
    failed: z.number().int(),
    total: z.number().int(),
  }),
});
const jobPaginationSchema = z.object({
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
  hasMore: z.boolean(),
  nextOffset: z.number().int().nullable(),
});

/** The SSE `progress` event of one recorded state: {status, progress, stage, errorMessage?}. */
const progressEvent = (state: api.WatchImportJobResponse) => ({
  status: jobStatus.toRest(state.status),
  progress: state.progress,
  // No stage yet is UNSPECIFIED (0) on the wire.
  stage: state.stage ? progressStage.toRest(state.stage) : null,
  ...(state.errorMessage ? { errorMessage: state.errorMessage } : {}),
});

/** The REST shape of an import job with its note (and the note's course) as the spec's Import job table lists them. */
export function jobJson(job: api.ImportJob, courses: Map<string, common.CourseSummary>) {
  const note = job.note;
  return {
    id: job.id,
    title: job.title,
    status: jobStatus.toRest(job.status),
    progress: job.progress,
    source: jobSource.toRest(job.source),
    errorMessage: job.errorMessage ?? null,
    userId: job.userId,
    noteId: job.noteId ?? null,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    completedAt: job.completedAt ?? null,
    note: note
      ? {
          id: note.id,
          title: note.title,
          status: transcriptionStatus.toRest(note.status),
          duration: note.duration ?? null,
          fileSize: note.fileSize ?? null,
          mimeType: note.mimeType ?? null,
          summary: note.summary ?? null,
          // Declared non-null, as media always sets them: a missing one is an internal error, not a null sent.
          date: required(note.createdAt, "JobNote.createdAt").toISOString().slice(0, 10),
          createdAt: required(note.createdAt, "JobNote.createdAt"),
          updatedAt: required(note.updatedAt, "JobNote.updatedAt"),
          course: courseJson(courses.get(note.courseId)),
        }
      : null,
  };
}

const notFound = { description: "No such job of the caller (NOT_FOUND)", schema: errorEnvelope };
const tag = "Import jobs";

export function jobRoutes(clients: ServiceClients, logger: Logger): RouteSpec[] {
  const withCourses = async (userId: string, jobs: api.ImportJob[]) => {
    const courses = await coursesById(
      clients,
      userId,
      jobs.flatMap((job) => (job.note ? [job.note.courseId] : [])),
    );
    return jobs.map((job) => jobJson(job, courses));
  };

  return [
    // Declared before /api/jobs/:id, which would otherwise take "stats" for an id.
    route({
      method: "get",
      path: "/api/jobs/stats",
      tag,
      summary: "Statistics of the caller's import jobs",
      auth: true,
      responses: { 200: { description: "Counts, success rate, the five newest jobs and the queue", schema: dataEnvelope(statsSchema) } },
      async handler({ userId, res }) {
        const stats = await clients.media.getJobStats({ userId });
        sendData(
          res,
          200,
          {
            total: stats.total,
            byStatus: stats.byStatus,
            successRate: stats.successRate,
            recentJobs: stats.recentJobs.map((job) => ({
              id: job.id,
              title: job.title,
              status: jobStatus.toRest(job.status),
              progress: job.progress,
              source: jobSource.toRest(job.source),
              createdAt: job.createdAt,
              completedAt: job.completedAt ?? null,
            })),
            queueStats: stats.queueStats,
          },
          "Job statistics retrieved",
        );
      },
    }),
    route({
      method: "get",
      path: "/api/jobs",
      tag,
      summary: "List the caller's import jobs with their notes",
      auth: true,
      query: listQuery,
      responses: {
        200: { description: "A page of jobs", schema: dataEnvelope(z.object({ jobs: z.array(jobSchema), pagination: jobPaginationSchema })) },
      },
      async handler({ userId, query, res }) {
        const { jobs, page } = await clients.media.listJobs({
          userId,
          page: { limit: query.limit, offset: query.offset },
          status: jobStatus.toProto(query.status),
          source: jobSource.toProto(query.source),
          sortBy: sortField.toProto(query.sortBy),
          sortOrder: sortOrder.toProto(query.sortOrder),
        });
        const hasMore = page?.hasMore ?? false;
        sendData(
          res,
          200,
          {
            jobs: await withCourses(userId, jobs),
            pagination: {
              total: page?.total ?? 0,
              limit: query.limit,
              offset: query.offset,
              hasMore,
              nextOffset: hasMore ? query.offset + jobs.length : null,
            },
          },
          "Jobs retrieved",
        );
      },
    }),
    route({
      method: "get",
      path: "/api/jobs/:id",
      tag,
      summary: "Get an import job with its note (summary and course included)",
      auth: true,
      params: jobIdParams,
      responses: { 200: { description: "The job", schema: dataEnvelope(jobSchema) }, 404: notFound },
      async handler({ userId, params, res }) {
        const { job } = await clients.media.getJob({ userId, jobId: params.id });
        const [json] = await withCourses(userId, [required(job, "job in GetJob reply")]);
        sendData(res, 200, json, "Job retrieved");
      },
    }),
    route({
      method: "get",
      path: "/api/jobs/:id/events",
      tag,
      summary: "Follow an import job's progress as Server-Sent Events until it ends",
      description:
        "Beyond the spec. `text/event-stream`: one `progress` event `{status, progress, stage}` (and `errorMessage` when set) " +
        "at once, then one for every state the job records (pushed by the media service, so no stage is missed), ending " +
        "with the final state (COMPLETED, FAILED or CANCELLED). A comment line after 15 s of silence keeps proxies from " +
        "closing an idle stream.",
      auth: true,
      params: jobIdParams,
      responses: { 200: { description: "The event stream", contentType: "text/event-stream" }, 404: notFound },
      async handler({ userId, params, res }) {
        // Media pushes the job's recorded states (WatchImportJob): the current one first, then every change.
        const call = clients.media.raw.watchImportJob({ userId, jobId: params.id }, traceMetadata());
        const next = serverStreamReader(call, "MediaService");
        // The first state before the stream starts, so that another user's or an unknown job is a normal 404.
        let state = await next();
        // The client left: stop following (media stops its side when the call is cancelled).
        const stream = openEventStream(res, () => call.cancel());
        try {
          while (!state.done && !stream.closed) {
            stream.send("progress", progressEvent(state.value));
            state = await next();
          }
        } catch (error) {
          // Media went away mid-stream: end the stream; the client may reconnect.
          if (!stream.closed) logger.warn({ err: error, jobId: params.id }, "job progress stream ended early");
        } finally {
          call.cancel();
          stream.end();
        }
      },
    }),
    route({
      method: "post",
      path: "/api/jobs/:id/cancel",
      tag,
      summary: "Cancel a pending or running import (the job becomes CANCELLED, its note FAILED)",
      auth: true,
      params: jobIdParams,
      responses: {
        200: { description: "Cancelled", schema: messageEnvelope },
        400: { description: "Invalid id (VALIDATION_ERROR), or the job already finished (JOB_ALREADY_FINISHED)", schema: errorEnvelope },
        404: notFound,
      },
      async handler({ userId, params, res }) {
        await clients.media.cancelJob({ userId, jobId: params.id });
        sendMessage(res, "Job cancelled");
      },
    }),
    route({
      method: "post",
      path: "/api/jobs/:id/retry",
      tag,
      summary: "Retry a cancelled or failed import with what it kept (the job becomes PENDING again, its note PENDING)",
      description:
        "Beyond the spec. The import is queued again with its kept audio (an upload) or URL and its speed; progress, " +
        "error and attempts start over. Only a CANCELLED or FAILED job can be retried, and only while its note exists: " +
        "409 JOB_NOT_RETRYABLE otherwise. Answers the job as GET /api/jobs/{id} does.",
      auth: true,
      params: jobIdParams,
      responses: {
        200: { description: "The job, PENDING again", schema: dataEnvelope(jobSchema) },
        400: { description: "Invalid id (VALIDATION_ERROR)", schema: errorEnvelope },
        404: notFound,
        409: { description: "The job is not CANCELLED or FAILED, or its note was deleted (JOB_NOT_RETRYABLE)", schema: errorEnvelope },
      },
      async handler({ userId, params, res }) {
        const { job } = await clients.media.retryJob({ userId, jobId: params.id });
        const [json] = await withCourses(userId, [required(job, "job in RetryJob reply")]);
        sendData(res, 200, json, "Job queued again");
      },
    }),
    route({
      method: "delete",
      path: "/api/jobs/:id",
      tag,
      summary: "Delete a finished import job (its note stays)",
      auth: true,
      params: jobIdParams,
      responses: {
        200: { description: "Deleted", schema: messageEnvelope },
        400: { description: "Invalid id (VALIDATION_ERROR), or the job is still active: cancel it first (JOB_ACTIVE)", schema: errorEnvelope },
        404: notFound,
      },
      async handler({ userId, params, res }) {
        await clients.media.deleteJob({ userId, jobId: params.id });
        sendMessage(res, "Job deleted");
      },
    }),
  ];
}
