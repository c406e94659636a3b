import { courses } from "@study/contracts";
import { createClient } from "./client";

/**
 * The courses service over gRPC, as services that attach records to a course need it (media's imports, the
 * calendar's events): CheckCourseOwnership answers NOT_FOUND for someone else's course.
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

  close(): void {
    this.client.close();
  }
}
