import { openAiConfigSchema } from "@study/ai";
import { emptyAsUnset } from "@study/platform";
import { grpcPort, processConfigSchema } from "@study/runtime";
import { createFileStorage, type FileStorage } from "@study/storage";
import { z } from "zod";
import { embeddingConfigSchema } from "./adapters/embeddings/openai-embedding-provider";
import type { ExtractionLimits } from "./application/ports/text-extractor.port";

const positiveInt = (fallback: number) => z.preprocess(emptyAsUnset, z.coerce.number().int().positive().default(fallback));
const optionalText = z.preprocess(emptyAsUnset, z.string().min(1).optional());

/** Settings the service and its worker share: storage, extraction limits, the embedding provider. */
const sharedConfigSchema = processConfigSchema.extend({
  DOCUMENTS_STORAGE_DIR: z
    .preprocess(emptyAsUnset, z.string().min(1).default(".data/documents"))
    .describe("Where documents live: a local folder by default, an S3-compatible bucket when DOCUMENTS_S3_BUCKET is set."),
  DOCUMENTS_S3_BUCKET: optionalText.describe("An S3-compatible bucket for the files instead of DOCUMENTS_STORAGE_DIR."),
  DOCUMENTS_S3_REGION: z.preprocess(emptyAsUnset, z.string().min(1).default("us-east-1")).describe("The bucket's region."),
  DOCUMENTS_S3_ENDPOINT: optionalText.describe("The S3 endpoint of a compatible server (MinIO, …); unset: AWS."),
  DOCUMENTS_S3_ACCESS_KEY_ID: optionalText.describe("The bucket's access key; unset: the SDK's default credentials."),
  DOCUMENTS_S3_SECRET_ACCESS_KEY: optionalText.describe("The access key's secret."),
  DOCUMENTS_EXTRACTION_TIMEOUT_MS: positiveInt(5 * 60_000).describe(
    "Time limit of one extraction (ms); over it, the document FAILED with the reason (a hostile file fails instead of exhausting the worker).",
  ),
  DOCUMENTS_MAX_PAGES: positiveInt(2_000).describe("Pages one document may have; over it, the document FAILED with the reason."),
  DOCUMENTS_MAX_INFLATED_BYTES: positiveInt(500 * 1024 * 1024).describe(
    "Bytes a document's compressed parts may inflate to (500 MB; zip bombs); over it, FAILED.",
  ),
  DOCUMENTS_MAX_TEXT_CHARS: positiveInt(5_000_000).describe(
    "Characters of text a document may hold (5 million: a 2 000-page book); its text travels in gRPC answers.",
  ),
  /** Embeddings for semantic search (an OpenAI-compatible endpoint); without OPENAI_API_KEY search is keyword only. */
  ...openAiConfigSchema.shape,
  ...embeddingConfigSchema.shape,
});

/** Settings of the documents service. */
export const documentsConfigSchema = sharedConfigSchema.extend({
  GRPC_PORT: grpcPort(50057),
  COURSES_GRPC_ADDRESS: z.string().min(1, "is required").describe("The courses service (`host:port`): a document's course is checked there."),
  CALENDAR_GRPC_ADDRESS: z.string().min(1, "is required").describe("The calendar service (`host:port`): a syllabus's events are created there."),
  DOCUMENTS_HTTP_PORT: z
    .preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(65_535).default(50067))
    .describe(
      "The internal HTTP endpoint (streamed uploads; plain HTTP, for the gateway only): served when INTERNAL_UPLOAD_SECRET is set, which the gateway shares to sign the user id it forwards.",
    ),
  INTERNAL_UPLOAD_SECRET: z
    .preprocess(emptyAsUnset, z.string().min(32, "must be at least 32 characters").optional())
    .describe("Shared with the gateway, which signs with it the user id of every upload and file request; unset: no internal HTTP endpoint."),
  DOCUMENTS_MAX_UPLOAD_BYTES: positiveInt(150 * 1024 * 1024).describe("Largest uploaded document (bytes); 150 MB."),
  SYLLABUS_PROCESSING_TIMEOUT_MS: positiveInt(60_000).describe(
    "A syllabus is read before its upload is answered: over this, the upload is refused (400) and nothing kept.",
  ),
  DOCUMENTS_WORK_DIR: optionalText.describe("Folder for the syllabi being read (unset: `<system temp>/study-documents-work`)."),
});
export type DocumentsConfig = z.infer<typeof documentsConfigSchema>;

/** The worker's settings. */
export const workerConfigSchema = sharedConfigSchema.extend({
  DOCUMENTS_WORKER_CONCURRENCY: z
    .preprocess(emptyAsUnset, z.coerce.number().int().min(1).max(16).default(1))
    .describe("Documents one worker process reads at once (its channel's prefetch)."),
  DOCUMENTS_WORK_DIR: optionalText.describe("Parent folder of the per-document temporary folders (unset: `<system temp>/study-documents-work`)."),
  DOCUMENTS_MAX_ATTEMPTS: positiveInt(3).describe("Starts of a document's processing (deliveries after worker crashes) before it is failed."),
  DOCUMENTS_WORKER_HEALTH_PORT: z
    .preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(65_535).default(0))
    .describe("Port of the worker's liveness endpoint (`GET /health/live`); 0 = none."),
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
