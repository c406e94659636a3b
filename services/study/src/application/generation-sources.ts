import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import { assertValidGenerationCommand, type GenerationCommand, type GenerationNote, type GenerationRequest } from "../domain/generation-request";
import type { SourceDocument } from "../domain/study-material";
import type { CurrentDocument, CurrentNote, GenerationSourcePorts } from "./ports/generation-sources.port";

const withoutCourse = ({ courseId: _courseId, ...note }: CurrentNote): GenerationNote => note;
const documentWithoutCourse = ({ courseId: _courseId, ...document }: CurrentDocument): SourceDocument => document;

/**
 * Reads what a generation names from the owners, as the user: the course (its name is the generator's context), each
 * note and each document. Another user's course, note or document is NOT_FOUND (the owners answer so), and so is a
 * note or document of another of the user's courses: it is not this material's, and a 404 says no more than a 400
 * would. The content rules (transcribed, enough text) are the generation's (assertValidGenerationRequest).
 */
export class GenerationSources {
  constructor(private readonly owners: GenerationSourcePorts) {}

  async read(command: GenerationCommand): Promise<GenerationRequest> {
    requireUserId(command.userId);
    assertValidGenerationCommand(command);
    const { userId } = command;
    const readDocuments = () => Promise.all(command.documentIds.map((documentId) => this.owners.documents.getDocumentText(userId, documentId)));

    // The document endpoint names no course: the material's course is its document's, read first.
    const documentsFirst = command.courseId.trim() ? null : await readDocuments();
    const courseId = command.courseId.trim() || (documentsFirst?.[0]?.courseId ?? "");
    const courseName = await this.owners.courses.courseName(userId, courseId);
    const [notes, documents] = await Promise.all([
      Promise.all(command.noteIds.map((noteId) => this.owners.notes.getNote(userId, noteId))),
      documentsFirst ?? readDocuments(),
    ]);
    for (const note of notes) {
      if (note.courseId !== courseId) throw AppError.notFound(`Note ${note.noteId} in this course`);
    }
    for (const document of documents) {
      if (document.courseId !== courseId) throw AppError.notFound(`Document ${document.documentId} in this course`);
    }
    return {
      userId,
      courseId,
      courseName,
      difficulty: command.difficulty,
      notes: notes.map(withoutCourse),
      documents: documents.map(documentWithoutCourse),
      focusAreas: command.focusAreas ?? [],
    };
  }
}
