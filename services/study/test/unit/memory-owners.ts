import { AppError } from "@study/platform/errors";
import { GenerationSources } from "../../src/application/generation-sources";
import type { CurrentDocument, CurrentNote, GenerationSourcePorts } from "../../src/application/ports/generation-sources.port";

/**
 * The owners a generation reads (courses, media, documents) over maps, answering as they do: NOT_FOUND for an unknown
 * record or another user's, DOCUMENT_NOT_PROCESSED for a document without text. Records what was read, in order.
 */
export class MemoryOwners implements GenerationSourcePorts {
  private readonly courseRecords = new Map<string, { userId: string; name: string }>();
  private readonly noteRecords = new Map<string, { userId: string; note: CurrentNote }>();
  private readonly documentRecords = new Map<string, { userId: string; document: CurrentDocument | "not processed" }>();
  readonly reads: string[] = [];

  addCourse(userId: string, courseId: string, name: string): this {
    this.courseRecords.set(courseId, { userId, name });
    return this;
  }

  addNote(userId: string, note: CurrentNote): this {
    this.noteRecords.set(note.noteId, { userId, note });
    return this;
  }

  addDocument(userId: string, documentId: string, document: CurrentDocument | "not processed"): this {
    this.documentRecords.set(documentId, { userId, document });
    return this;
  }

  sources(): GenerationSources {
    return new GenerationSources(this);
  }

  readonly courses = {
    courseName: async (userId: string, courseId: string): Promise<string> => {
      this.reads.push(`course ${courseId}`);
      return this.owned(this.courseRecords.get(courseId), userId, "Course").name;
    },
  };

  readonly notes = {
    getNote: async (userId: string, noteId: string): Promise<CurrentNote> => {
      this.reads.push(`note ${noteId}`);
      return this.owned(this.noteRecords.get(noteId), userId, "Note").note;
    },
  };

  readonly documents = {
    getDocumentText: async (userId: string, documentId: string): Promise<CurrentDocument> => {
      this.reads.push(`document ${documentId}`);
      const { document } = this.owned(this.documentRecords.get(documentId), userId, "Document");
      if (document === "not processed")
        throw new AppError("precondition", "DOCUMENT_NOT_PROCESSED", "The document has no text yet: still processing");
      return document;
    },
  };

  private owned<R extends { userId: string }>(record: R | undefined, userId: string, what: string): R {
    if (!record || record.userId !== userId) throw AppError.notFound(what);
    return record;
  }
}
