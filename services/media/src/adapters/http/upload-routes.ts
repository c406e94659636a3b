import { media as api } from "@study/contracts";
import { AppError, type Logger } from "@study/platform";
import type { AddAttachment } from "../../application/add-attachment";
import { validateAttachmentFields } from "../../application/add-attachment";
import type { CreateImport } from "../../application/create-import";
import type { RecordUploadedContent } from "../../application/record-uploaded-content";
import type { FileStorage } from "../../application/ports/file-storage.port";
import { ATTACHMENT_DETECTION_BYTES, ATTACHMENT_SIZE_LIMITS, assertAttachmentContent, attachmentTypeOf } from "../../domain/attachment-type";
import { AUDIO_FORMAT_DETECTION_BYTES, AUDIO_FORMATS, detectAudioFormat, mimeTypeOfAudioFormat } from "../../domain/audio-format";
import { toProtoJob, toProtoNote } from "../grpc/proto-mapping";
import { newUploadKey, type UploadRoute } from "@study/storage";

const unexpectedAudio = () =>
  new AppError(
    "validation",
    "UNEXPECTED_FILE",
    `Unsupported audio format: expected ${Object.values(AUDIO_FORMATS)
      .map((format) => format.label)
      .join(", ")}`,
    {
      details: [{ field: "file", message: "is not a supported audio file" }],
    },
  );

/**
 * POST /uploads/audio (gateway: POST /api/notes/upload/audio): multipart `file`, `courseId`, `title?`,
 * `speedMultiplier?`. The format is recognised from the content; then CreateImport (course, fields, title), then the
 * file's SHA-256 is kept with the note (RecordUploadedContent). Answers 201 `{note, job}` (protobuf JSON, shaped by
 * the gateway), `uploadInfo` and `duplicateOf` (the user's earlier note of the same file, or null).
 */
export function audioUploadRoute(options: {
  maxBytes: number;
  storage: FileStorage;
  createImport: CreateImport;
  recordContent: RecordUploadedContent;
  logger: Logger;
}): UploadRoute {
  return {
    maxBytes: () => options.maxBytes,
    inspectBytes: AUDIO_FORMAT_DETECTION_BYTES,
    key: (userId, fileName) => newUploadKey("uploads/audio", userId, fileName),
    inspect(firstBytes) {
      const format = detectAudioFormat(firstBytes);
      if (!format) throw unexpectedAudio();
      return mimeTypeOfAudioFormat(format);
    },
    async complete(userId, upload, fields) {
      const speed = fields.speedMultiplier?.trim();
      // CreateImport applies the import rules (course, speed, title made from the file name when none is given).
      const { note, job } = await options.createImport.execute(userId, {
        type: "AUDIO_UPLOAD",
        // A blank title field is no title: media makes one from the file name.
        title: fields.title?.trim() ? fields.title : undefined,
        courseId: fields.courseId ?? "",
        storageKey: upload.storageKey,
        speedMultiplier: speed ? Number(speed) : undefined,
        mimeType: upload.mimeType,
        originalFilename: upload.fileName,
        fileSize: upload.size,
        audioUrl: options.storage.publicUrl(upload.storageKey),
      });
      // The note and its job exist now: a failure here must not fail the upload (its file would be removed under
      // the note). The note then only goes unnoticed by later uploads of the same file.
      const { duplicateOf } = await options.recordContent.execute(userId, note.id, upload.sha256).catch((error: unknown) => {
        options.logger.warn({ err: error, noteId: note.id }, "could not record the content hash of an uploaded note");
        return { duplicateOf: null };
      });
      return {
        status: 201,
        body: {
          note: api.Note.toJSON(toProtoNote(note)),
          job: api.ImportJob.toJSON(toProtoJob(job)),
          uploadInfo: { filename: upload.fileName, size: upload.size, mimeType: upload.mimeType, s3Key: upload.storageKey },
          duplicateOf,
        },
      };
    },
  };
}

/**
 * POST /uploads/notes/:noteId/attachments (gateway: POST /api/notes/{id}/attachments): multipart `file`,
 * `timestamp`, `description?`. Type by extension and content; size limit by category. Answers 201 with the
 * attachment upload result.
 */
export function attachmentUploadRoute(options: { storage: FileStorage; addAttachment: AddAttachment }): UploadRoute {
  return {
    maxBytes: (_fields, fileName) => ATTACHMENT_SIZE_LIMITS[attachmentTypeOf(fileName).category],
    inspectBytes: ATTACHMENT_DETECTION_BYTES,
    key: (userId, fileName) => newUploadKey("uploads/attachments", userId, fileName),
    inspect(firstBytes, fileName) {
      const type = attachmentTypeOf(fileName);
      assertAttachmentContent(type, firstBytes);
      return type.mimeType;
    },
    async complete(userId, upload, fields, params) {
      validateAttachmentFields(fields);
      const attachment = await options.addAttachment.execute(userId, {
        noteId: params.noteId,
        storageKey: upload.storageKey,
        fileUrl: options.storage.publicUrl(upload.storageKey),
        fileName: upload.fileName,
        fileSize: upload.size,
        mimeType: upload.mimeType,
        timestamp: fields.timestamp,
        description: fields.description,
      });
      return {
        status: 201,
        body: {
          attachment: {
            fileUrl: attachment.fileUrl,
            fileName: attachment.fileName,
            fileSize: attachment.fileSize,
            mimeType: attachment.mimeType,
            timestamp: attachment.timestamp,
            description: attachment.description,
            uploadedAt: attachment.uploadedAt.toISOString(),
          },
        },
      };
    },
  };
}
