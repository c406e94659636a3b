import { courses } from "@study/contracts";
import { startGrpcServer, unary } from "@study/grpc";
import { AppError, createLogger } from "@study/platform";

/**
 * A stand-in courses service, for media run without the real one (its integration tests, the pipeline bench):
 * CheckCourseOwnership answers that every course belongs to its caller, except those named in `foreign`
 * (NOT_FOUND, as the real service answers for someone else's).
 */
export async function startFakeCourses(foreign: ReadonlySet<string> = new Set()) {
  const logger = createLogger("fake-courses", "silent");
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    services: [
      {
        definition: courses.CoursesServiceService,
        implementation: {
          checkCourseOwnership: unary(logger, "CheckCourseOwnership", async (request: courses.CheckCourseOwnershipRequest) => {
            if (foreign.has(request.courseId)) throw AppError.notFound("Course");
            return { course: { id: request.courseId, name: "Biology" } };
          }),
        },
      },
    ],
  });
  return { address: `127.0.0.1:${server.port}`, close: () => server.shutdown() };
}
