import { courses } from "@study/contracts";
import { createClient } from "@study/grpc";
import type { CourseDirectory } from "../../application/ports/course-directory.port";

/** The courses service over gRPC (CheckCourseOwnership answers NOT_FOUND for someone else's course). */
export class GrpcCourseDirectory implements CourseDirectory {
  private readonly client;

  constructor(address: string, deadlineMs = 5_000) {
    this.client = createClient(courses.CoursesServiceClient, courses.CoursesServiceService, address, { deadlineMs });
  }

  async assertOwned(userId: string, courseId: string): Promise<void> {
    await this.client.checkCourseOwnership({ userId, courseId });
  }

  close(): void {
    this.client.close();
  }
}
