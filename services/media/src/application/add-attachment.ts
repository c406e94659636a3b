import { AppError } from "@study/platform/errors";
import { isUuid, requireUserId } from "@study/platform/ids";
import type { Attachment } from "../domain/note";
import { newId } from "@study/grpc/ids";
import type { NoteRepository } from "./ports/note-repository.port";

export interface AttachmentDraft {
  noteId: string;
  storageKey: string;
  fileUrl: string;
  fileName: string;
  fileSize: number;
  mimeType: string;
  /** As sent (multipart fields are text): a number of seconds >= 0. */
  timestamp: string | undefined;
  description: string | undefined;
}

const MAX_DESCRIPTION_LENGTH = 1000;

/** Checks the fields of an attachment upload (before the file is kept). */
export function validateAttachmentFields(fields: { timestamp?: string; description?: string }): { timestamp: number; description: string | null } {
  const violations = [];
  const text = fields.timestamp?.trim() ?? "";
  const timestamp = text === "" ? NaN : Number(text);
  if (text === "") violations.push({ field: "timestamp", message: "is required" });
  else if (!Number.isFinite(timestamp) || timestamp < 0) violations.push({ field: "timestamp", message: "must be a number of seconds >= 0" });
  const description = fields.description?.trim() || null;
  if (description !== null && [...description].length > MAX_DESCRIPTION_LENGTH) {
    violations.push({ field: "description", message: `must be at most ${MAX_DESCRIPTION_LENGTH} characters` });
  }
  if (violations.length > 0) throw AppError.validation("Invalid attachment", violations);
  return { timestamp, description };
}

/** Adds a stored file to the user's note at a point of its audio; NOT_FOUND for another user's or a missing note. */
export class AddAttachment {
  constructor(private readonly notes: NoteRepository) {}

  async execute(userId: string, draft: AttachmentDraft): Promise<Attachment> {
    requireUserId(userId);
    if (!isUuid(draft.noteId)) throw AppError.notFound("Note");
    const { timestamp, description } = validateAttachmentFields(draft);
    const attachment: Attachment = {
      id: newId(),
      noteId: draft.noteId,
      storageKey: draft.storageKey,
      fileUrl: draft.fileUrl,
      fileName: [...draft.fileName].slice(-255).join(""),
      fileSize: draft.fileSize,
      mimeType: draft.mimeType,
      timestamp,
      description,
      uploadedAt: new Date(),
    };
    if (!(await this.notes.addAttachment(userId, attachment))) throw AppError.notFound("Note");
    return attachment;
  }
}
