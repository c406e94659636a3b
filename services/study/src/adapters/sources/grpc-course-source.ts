import { courses } from "@study/contracts";
import { createClient } from "@study/grpc";
import { required } from "@study/platform/errors";
import type { CourseSource } from "../../application/ports/generation-sources.port";

/** The courses service's CheckCourseOwnership: the course's name, NOT_FOUND (passed on) unless it is the user's. */
export class GrpcCourseSource implements CourseSource {
  private readonly client;

  constructor(address: string, deadlineMs = 5_000) {
    this.client = createClient(courses.CoursesServiceClient, courses.CoursesServiceService, address, { deadlineMs });
  }

  async courseName(userId: string, courseId: string): Promise<string> {
    const reply = await this.client.checkCourseOwnership({ userId, courseId });
    return required(reply.course, "course in CheckCourseOwnership reply").name;
  }

  close(): void {
    this.client.close();
  }
}
