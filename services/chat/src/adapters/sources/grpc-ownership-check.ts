import { courses, documents, media } from "@study/contracts";
import { createClient } from "@study/grpc";
import { AppError, required } from "@study/platform/errors";
import type { OwnershipCheck } from "../../application/ports/chat-ports.port";

export interface OwnershipAddresses {
  courses: string;
  media: string;
  documents: string;
}

/**
 * Ownership through the owners: the course with courses' GetCourse, each note with media's GetNote, each document
 * with documents' GetDocument. Each answers NOT_FOUND for another user's record, which passes through as is. A note
 * or document of another of the user's courses is NOT_FOUND too: it is not in this session's course, and a 404
 * tells nothing a 400 would not, the same answer as for someone else's.
 */
export class GrpcOwnershipCheck implements OwnershipCheck {
  private readonly courses;
  private readonly media;
  private readonly documents;

  constructor(addresses: OwnershipAddresses, deadlineMs = 5_000) {
    this.courses = createClient(courses.CoursesServiceClient, courses.CoursesServiceService, addresses.courses, { deadlineMs });
    this.media = createClient(media.MediaServiceClient, media.MediaServiceService, addresses.media, { deadlineMs });
    // GetNote and GetDocument answer with the whole transcript or text.
    this.documents = createClient(documents.DocumentsServiceClient, documents.DocumentsServiceService, addresses.documents, { deadlineMs });
  }

  async courseName(userId: string, courseId: string): Promise<string> {
    const reply = await this.courses.getCourse({ userId, courseId });
    return required(reply.course, "course in GetCourse reply").name;
  }

  async assertOwnsSources(userId: string, courseId: string, noteIds: readonly string[], documentIds: readonly string[]): Promise<void> {
    await Promise.all([
      ...noteIds.map(async (noteId) => {
        const note = required((await this.media.getNote({ userId, noteId })).note, "note in GetNote reply");
        if (note.courseId !== courseId) throw AppError.notFound("Note");
      }),
      // GetDocument is scoped to the course: another course's document is NOT_FOUND already.
      ...documentIds.map(async (documentId) => {
        await this.documents.getDocument({ userId, courseId, documentId });
      }),
    ]);
  }

  close(): void {
    this.courses.close();
    this.media.close();
    this.documents.close();
  }
}
