import { emptyAsUnset, port } from "@study/platform";
import { serviceConfigSchema } from "@study/runtime";
import { z } from "zod";
import { transcriptionConfigSchema } from "./adapters/transcription/create-transcriber";

const positiveInt = (fallback: number) => z.preprocess(emptyAsUnset, z.coerce.number().int().positive().default(fallback));

/** Where files live: a local folder by default, an S3-compatible bucket when MEDIA_S3_BUCKET is set. */
export const storageConfigSchema = z.object({
  MEDIA_STORAGE_DIR: z.preprocess(emptyAsUnset, z.string().min(1).default(".data/media")),
  /**
   * Base of the audioUrl/fileUrl given to clients: the gateway's owner-scoped file route. Relative to the
   * gateway by default; absolute (`https://api.example.com/api/files`) when clients run on another origin.
   */
  MEDIA_PUBLIC_BASE_URL: z.preprocess(emptyAsUnset, z.string().min(1).default("/api/files")),
  MEDIA_S3_BUCKET: z.preprocess(emptyAsUnset, z.string().min(1).optional()),
  MEDIA_S3_REGION: z.preprocess(emptyAsUnset, z.string().min(1).default("us-east-1")),
  MEDIA_S3_ENDPOINT: z.preprocess(emptyAsUnset, z.string().min(1).optional()),
  MEDIA_S3_ACCESS_KEY_ID: z.preprocess(emptyAsUnset, z.string().min(1).optional()),
  MEDIA_S3_SECRET_ACCESS_KEY: z.preprocess(emptyAsUnset, z.string().min(1).optional()),
});

/** Settings of the media service (the pipeline's settings join them in the worker). */
export const mediaConfigSchema = serviceConfigSchema.extend({
  GRPC_PORT: port(50053),
  /** SSRF allow-list of the downloader and the video source (see outbound-url-policy.ts). */
  MEDIA_DOWNLOAD_ALLOWLIST: z.string().default(""),
  ...storageConfigSchema.shape,
  /**
   * The internal HTTP endpoint (uploads and file downloads; plain HTTP, for the gateway only): served when
   * INTERNAL_UPLOAD_SECRET is set, which the gateway shares to sign the user id it forwards.
   * COURSES_GRPC_ADDRESS: imports check the course (required by the service, not by the worker).
   */
  MEDIA_HTTP_PORT: z.preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(65_535).default(50063)),
  INTERNAL_UPLOAD_SECRET: z.preprocess(emptyAsUnset, z.string().min(32, "must be at least 32 characters").optional()),
  COURSES_GRPC_ADDRESS: z.preprocess(emptyAsUnset, z.string().min(1).optional()),
  /** Largest uploaded audio (bytes); 150 MB. */
  MEDIA_MAX_UPLOAD_BYTES: positiveInt(150 * 1024 * 1024),
});
export type MediaConfig = z.infer<typeof mediaConfigSchema>;

/** The worker's settings: the service's plus the pipeline's. */
export const workerConfigSchema = mediaConfigSchema.extend({
  ...transcriptionConfigSchema.shape,
  /** Imports one worker process runs at once (its channel's prefetch). */
  MEDIA_WORKER_CONCURRENCY: z.preprocess(emptyAsUnset, z.coerce.number().int().min(1).max(16).default(1)),
  /** Parent folder of the per-job temporary folders (default: the system's temporary folder). */
  MEDIA_WORK_DIR: z.preprocess(emptyAsUnset, z.string().min(1).optional()),
  /** Largest downloaded audio (bytes); 150 MB. */
  MEDIA_MAX_DOWNLOAD_BYTES: positiveInt(150 * 1024 * 1024),
  MEDIA_DOWNLOAD_TIMEOUT_MS: positiveInt(10 * 60_000),
  /** Starts of a job (deliveries after worker crashes) before it is failed. */
  MEDIA_MAX_ATTEMPTS: positiveInt(3),
  /** How often a running import re-reads its job to notice a cancellation. */
  MEDIA_CANCEL_CHECK_MS: positiveInt(2_000),
  /** Port of the worker's liveness endpoint (`GET /health/live`); 0 = none. */
  MEDIA_WORKER_HEALTH_PORT: z.preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(65_535).default(0)),
});
export type WorkerConfig = z.infer<typeof workerConfigSchema>;
