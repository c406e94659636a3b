import { courses } from "@study/contracts";
import { required } from "@study/platform/errors";
import { createClient } from "./client";

/**
 * The courses service over gRPC, as services that attach records to a course or name it need it (media's imports,
 * the calendar's events, study's generations): CheckCourseOwnership answers NOT_FOUND for someone else's course.
 */
export class GrpcCourseDirectory {
  private readonly client;

  constructor(address: string, deadlineMs = 5_000) {
    this.client = createClient(courses.CoursesServiceClient, courses.CoursesServiceService, address, { deadlineMs });
  }

  /** Resolves when the course exists and belongs to the user; NOT_FOUND otherwise. */
  async assertOwned(userId: string, courseId: string): Promise<void> {
    await this.client.checkCourseOwnership({ userId, courseId });
  }

  /** The course's name when it belongs to the user; NOT_FOUND otherwise. */
  async courseName(userId: string, courseId: string): Promise<string> {
    const reply = await this.client.checkCourseOwnership({ userId, courseId });
    return required(reply.course, "course in CheckCourseOwnership reply").name;
  }

  close(): void {
    this.client.close();
  }
}
