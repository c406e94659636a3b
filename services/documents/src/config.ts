import { openAiConfigSchema } from "@study/ai";
import { emptyAsUnset, port } from "@study/platform";
import { processConfigSchema } from "@study/runtime";
import { createFileStorage, type FileStorage } from "@study/storage";
import { z } from "zod";
import { embeddingConfigSchema } from "./adapters/embeddings/openai-embedding-provider";
import type { ExtractionLimits } from "./application/ports/text-extractor.port";

const positiveInt = (fallback: number) => z.preprocess(emptyAsUnset, z.coerce.number().int().positive().default(fallback));
const optionalText = z.preprocess(emptyAsUnset, z.string().min(1).optional());

/** Settings the service and its worker share: storage, extraction limits, the embedding provider. */
const sharedConfigSchema = processConfigSchema.extend({
  /** Where documents live: a local folder by default, an S3-compatible bucket when DOCUMENTS_S3_BUCKET is set. */
  DOCUMENTS_STORAGE_DIR: z.preprocess(emptyAsUnset, z.string().min(1).default(".data/documents")),
  DOCUMENTS_S3_BUCKET: optionalText,
  DOCUMENTS_S3_REGION: z.preprocess(emptyAsUnset, z.string().min(1).default("us-east-1")),
  DOCUMENTS_S3_ENDPOINT: optionalText,
  DOCUMENTS_S3_ACCESS_KEY_ID: optionalText,
  DOCUMENTS_S3_SECRET_ACCESS_KEY: optionalText,
  /** Limits of one extraction (a hostile file fails with a clear message instead of exhausting the worker). */
  DOCUMENTS_EXTRACTION_TIMEOUT_MS: positiveInt(5 * 60_000),
  DOCUMENTS_MAX_PAGES: positiveInt(2_000),
  DOCUMENTS_MAX_INFLATED_BYTES: positiveInt(500 * 1024 * 1024),
  /** Characters of text a document may hold (5 million: a 2 000-page book); its text travels in gRPC answers. */
  DOCUMENTS_MAX_TEXT_CHARS: positiveInt(5_000_000),
  /** Embeddings for semantic search (an OpenAI-compatible endpoint); without OPENAI_API_KEY search is keyword only. */
  ...openAiConfigSchema.shape,
  ...embeddingConfigSchema.shape,
});

/** Settings of the documents service. */
export const documentsConfigSchema = sharedConfigSchema.extend({
  GRPC_PORT: port(50057),
  /** The courses service: a document's course is checked there (CheckCourseOwnership). */
  COURSES_GRPC_ADDRESS: z.string().min(1, "is required"),
  /** The calendar service: a syllabus's events are created there (CreateEventsFromSource). */
  CALENDAR_GRPC_ADDRESS: z.string().min(1, "is required"),
  /**
   * The internal HTTP endpoint (streamed uploads; plain HTTP, for the gateway only): served when
   * INTERNAL_UPLOAD_SECRET is set, which the gateway shares to sign the user id it forwards.
   */
  DOCUMENTS_HTTP_PORT: z.preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(65_535).default(50067)),
  INTERNAL_UPLOAD_SECRET: z.preprocess(emptyAsUnset, z.string().min(32, "must be at least 32 characters").optional()),
  /** Largest uploaded document (bytes); 150 MB. */
  DOCUMENTS_MAX_UPLOAD_BYTES: positiveInt(150 * 1024 * 1024),
  /** A syllabus is read before its upload is answered: over this, the upload is refused (400) and nothing kept. */
  SYLLABUS_PROCESSING_TIMEOUT_MS: positiveInt(60_000),
  /** Folder for the files being read (default: the system's temporary folder). */
  DOCUMENTS_WORK_DIR: optionalText,
});
export type DocumentsConfig = z.infer<typeof documentsConfigSchema>;

/** The worker's settings. */
export const workerConfigSchema = sharedConfigSchema.extend({
  /** Documents one worker process reads at once (its channel's prefetch). */
  DOCUMENTS_WORKER_CONCURRENCY: z.preprocess(emptyAsUnset, z.coerce.number().int().min(1).max(16).default(1)),
  /** Parent folder of the per-document temporary folders (default: the system's temporary folder). */
  DOCUMENTS_WORK_DIR: optionalText,
  /** Starts of a document's processing (deliveries after worker crashes) before it is failed. */
  DOCUMENTS_MAX_ATTEMPTS: positiveInt(3),
  /** Port of the worker's liveness endpoint (`GET /health/live`); 0 = none. */
  DOCUMENTS_WORKER_HEALTH_PORT: z.preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(65_535).default(0)),
});
export type WorkerConfig = z.infer<typeof workerConfigSchema>;

type SharedConfig = z.infer<typeof sharedConfigSchema>;

/** An S3-compatible bucket when DOCUMENTS_S3_BUCKET is set, otherwise the local folder DOCUMENTS_STORAGE_DIR. */
export function documentStorage(config: SharedConfig): FileStorage {
  return createFileStorage({
    storageDir: config.DOCUMENTS_STORAGE_DIR,
    // Files are served by id (GET /api/documents/{id}/file), never by storage key: the URL base is unused but required.
    publicBaseUrl: "/api/documents",
    s3: config.DOCUMENTS_S3_BUCKET
      ? {
          bucket: config.DOCUMENTS_S3_BUCKET,
          region: config.DOCUMENTS_S3_REGION,
          endpoint: config.DOCUMENTS_S3_ENDPOINT,
          accessKeyId: config.DOCUMENTS_S3_ACCESS_KEY_ID,
          secretAccessKey: config.DOCUMENTS_S3_SECRET_ACCESS_KEY,
        }
      : undefined,
  });
}

export const extractionLimits = (config: SharedConfig): ExtractionLimits => ({
  timeoutMs: config.DOCUMENTS_EXTRACTION_TIMEOUT_MS,
  maxPages: config.DOCUMENTS_MAX_PAGES,
  maxInflatedBytes: config.DOCUMENTS_MAX_INFLATED_BYTES,
  maxTextChars: config.DOCUMENTS_MAX_TEXT_CHARS,
});
