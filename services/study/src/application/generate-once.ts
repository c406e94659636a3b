import { newId } from "@study/grpc/ids";
import type { EventEnvelope } from "@study/events/envelope";
import { requireUserId } from "@study/platform/ids";
import type { MaterialOrigin } from "../domain/flashcard-set";
import { generationFingerprint, type MaterialKind } from "../domain/generation-fingerprint";
import { assertValidGenerationRequest, type GenerationRequest } from "../domain/generation-request";
import type { MaterialRepository } from "./ports/study-repositories.port";

export interface GenerationOutcome<M> {
  material: M;
  /** False when material for the same source content already existed and was returned instead. */
  created: boolean;
  /** Why new material has fewer items than asked for (see shortfallMessage); null when it has them all or was not created now. */
  shortfall?: string | null;
  /** The documents read, with their titles now, in the order asked for. */
  documents: { documentId: string; title: string }[];
}

/**
 * The deduplicated generation every kind shares: the same user, course and source content return the stored
 * material, whatever options were asked for; otherwise `build` generates new material, which is stored with its Created event.
 */
export async function generateOnce<M extends MaterialOrigin>(options: {
  kind: MaterialKind;
  request: GenerationRequest;
  repository: MaterialRepository<M>;
  build: (origin: Omit<MaterialOrigin, "title" | "description">) => Promise<M>;
  createdEvent: (material: M) => EventEnvelope;
}): Promise<GenerationOutcome<M>> {
  const { request, repository } = options;
  requireUserId(request.userId);
  assertValidGenerationRequest(request);
  const documents = request.documents ?? [];
  const contentHash = generationFingerprint(options.kind, request.notes, { documents, focusAreas: request.focusAreas });
  const read = documents.map(({ documentId, title }) => ({ documentId, title }));
  const existing = await repository.findByFingerprint(request.userId, request.courseId, contentHash);
  if (existing) return { material: existing, created: false, documents: read };

  const now = new Date();
  // Material made from documents only has no note.
  const firstNote = request.notes.at(0);
  const material = await options.build({
    id: newId(),
    userId: request.userId,
    courseId: request.courseId,
    noteId: firstNote?.noteId ?? null,
    noteTitle: firstNote?.title ?? null,
    noteIds: request.notes.map((note) => note.noteId),
    documentIds: documents.map((document) => document.documentId),
    contentHash,
    difficulty: request.difficulty,
    generator: "",
    createdAt: now,
    updatedAt: now,
  });
  const outcome = await repository.insertUnlessDuplicate(material, [options.createdEvent(material)]);
  return { material: outcome.material, created: outcome.created, documents: read };
}
