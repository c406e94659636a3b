import { emptyAsUnset } from "@study/platform";
import { grpcPort, serviceConfigSchema } from "@study/runtime";
import { z } from "zod";
import { transcriptionConfigSchema } from "./adapters/transcription/create-transcriber";

const positiveInt = (fallback: number) => z.preprocess(emptyAsUnset, z.coerce.number().int().positive().default(fallback));

/** Where files live: a local folder by default, an S3-compatible bucket when MEDIA_S3_BUCKET is set. */
export const storageConfigSchema = z.object({
  MEDIA_STORAGE_DIR: z
    .preprocess(emptyAsUnset, z.string().min(1).default(".data/media"))
    .describe("The folder of the stored files (shared by the service and its workers; `npm start`: `<data dir>/media`)."),
  MEDIA_PUBLIC_BASE_URL: z
    .preprocess(emptyAsUnset, z.string().min(1).default("/api/files"))
    .describe(
      "Base of the audioUrl/fileUrl given to clients: the gateway's owner-scoped file route. Relative to the gateway by default; absolute (`https://api.example.com/api/files`) when clients run on another origin.",
    ),
  MEDIA_S3_BUCKET: z
    .preprocess(emptyAsUnset, z.string().min(1).optional())
    .describe("An S3-compatible bucket for the files instead of MEDIA_STORAGE_DIR."),
  MEDIA_S3_REGION: z.preprocess(emptyAsUnset, z.string().min(1).default("us-east-1")).describe("The bucket's region."),
  MEDIA_S3_ENDPOINT: z
    .preprocess(emptyAsUnset, z.string().min(1).optional())
    .describe("The S3 endpoint of a compatible server (MinIO, …); unset: AWS."),
  MEDIA_S3_ACCESS_KEY_ID: z
    .preprocess(emptyAsUnset, z.string().min(1).optional())
    .describe("The bucket's access key; unset: the SDK's default credentials."),
  MEDIA_S3_SECRET_ACCESS_KEY: z.preprocess(emptyAsUnset, z.string().min(1).optional()).describe("The access key's secret."),
});

/** Settings of the media service (the pipeline's settings join them in the worker). */
export const mediaConfigSchema = serviceConfigSchema.extend({
  GRPC_PORT: grpcPort(50053),
  MEDIA_DOWNLOAD_ALLOWLIST: z
    .string()
    .default("")
    .describe(
      "Hosts, addresses and CIDRs (comma-separated) the downloader and yt-dlp may reach although private or loopback: the SSRF policy's exceptions (outbound-url-policy.ts).",
    ),
  ...storageConfigSchema.shape,
  MEDIA_HTTP_PORT: z
    .preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(65_535).default(50063))
    .describe(
      "Port of the internal HTTP endpoint (uploads and stored files; plain HTTP, for the gateway only), served when INTERNAL_UPLOAD_SECRET is set.",
    ),
  INTERNAL_UPLOAD_SECRET: z
    .preprocess(emptyAsUnset, z.string().min(32, "must be at least 32 characters").optional())
    .describe("Shared with the gateway, which signs with it the user id of every upload and file request; unset: no internal HTTP endpoint."),
  COURSES_GRPC_ADDRESS: z
    .preprocess(emptyAsUnset, z.string().min(1).optional())
    .describe("The courses service (`host:port`): an import's course is checked there (required by the service, not by the worker)."),
  MEDIA_MAX_UPLOAD_BYTES: positiveInt(150 * 1024 * 1024).describe("Largest uploaded audio (bytes); 150 MB."),
});
export type MediaConfig = z.infer<typeof mediaConfigSchema>;

/** The worker's settings: the service's plus the pipeline's. */
export const workerConfigSchema = mediaConfigSchema.extend({
  ...transcriptionConfigSchema.shape,
  MEDIA_WORKER_CONCURRENCY: z
    .preprocess(emptyAsUnset, z.coerce.number().int().min(1).max(16).default(1))
    .describe("Imports one worker process runs at once (its channel's prefetch)."),
  MEDIA_WORK_DIR: z
    .preprocess(emptyAsUnset, z.string().min(1).optional())
    .describe("Parent folder of the per-job temporary folders (unset: `<system temp>/study-media-work`)."),
  MEDIA_MAX_DOWNLOAD_BYTES: positiveInt(150 * 1024 * 1024).describe("Largest downloaded audio (bytes); 150 MB."),
  MEDIA_DOWNLOAD_TIMEOUT_MS: positiveInt(10 * 60_000).describe("Time limit of one audio URL or video download (ms)."),
  MEDIA_MAX_ATTEMPTS: positiveInt(3).describe("Starts of a job (deliveries after worker crashes) before it is failed."),
  MEDIA_CANCEL_CHECK_MS: positiveInt(2_000).describe("How often a running import re-reads its job to notice a cancellation."),
  MEDIA_WORKER_HEALTH_PORT: z
    .preprocess(emptyAsUnset, z.coerce.number().int().min(0).max(65_535).default(0))
    .describe("Port of the worker's liveness endpoint (`GET /health/live`); 0 = none."),
});
export type WorkerConfig = z.infer<typeof workerConfigSchema>;
