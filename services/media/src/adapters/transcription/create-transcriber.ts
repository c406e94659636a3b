import { createOpenAiClient, openAiConfigSchema, type OpenAiClient } from "@study/ai";
import { emptyAsUnset } from "@study/platform";
import { z } from "zod";
import type { AudioProcessor } from "../../application/ports/audio-processor.port";
import type { Transcriber } from "../../application/ports/transcriber.port";
import { FfmpegAudioProcessor } from "../audio/ffmpeg-audio-processor";
import { OPENAI_MAX_UPLOAD_BYTES, OpenAiTranscriber } from "./openai-transcriber";
import { DEBIAN_POCKETSPHINX_MODEL_DIRECTORY, PocketsphinxTranscriber } from "./pocketsphinx-transcriber";

/**
 * Transcription settings, as a fragment for the service's configuration schema
 * (`schema.extend(transcriptionConfigSchema.shape)`); includes the shared OPENAI_* settings of @study/ai.
 */
export const transcriptionConfigSchema = openAiConfigSchema.extend({
  OPENAI_TRANSCRIPTION_MODEL: z
    .preprocess(emptyAsUnset, z.string().min(1).default("whisper-1"))
    .describe("Must answer verbose_json with segments: whisper-1, or the model name of a self-hosted Whisper server."),
  OPENAI_TRANSCRIPTION_MAX_UPLOAD_BYTES: z
    .preprocess(
      emptyAsUnset,
      z.coerce
        .number()
        .int()
        .min(64 * 1024)
        .default(OPENAI_MAX_UPLOAD_BYTES),
    )
    .describe("Larger files are uploaded in pieces; OpenAI refuses uploads over 25 MB."),
  OPENAI_TRANSCRIPTION_TIMEOUT_MS: z
    .preprocess(
      emptyAsUnset,
      z.coerce
        .number()
        .int()
        .positive()
        .default(10 * 60_000),
    )
    .describe("Per uploaded piece (a 25 MB piece holds ~13 minutes of speech WAV)."),
  POCKETSPHINX_MODEL_DIR: z
    .preprocess(emptyAsUnset, z.string().min(1).default(DEBIAN_POCKETSPHINX_MODEL_DIRECTORY))
    .describe("Holds `en-us/`, `en-us.lm.bin` and `cmudict-en-us.dict` (Debian's pocketsphinx-en-us)."),
});

export type TranscriptionConfig = z.infer<typeof transcriptionConfigSchema>;

export interface TranscriberDependencies {
  audioProcessor?: AudioProcessor;
  /** Share one client between the AI adapters; built from the configuration otherwise. */
  openAiClient?: OpenAiClient;
  /** Where pieces of long uploads are written (default: the system's temporary folder). */
  workDirectory?: string;
}

/**
 * The transcriber the configuration asks for: OpenAI's transcription API (or the compatible server at
 * OPENAI_BASE_URL) when OPENAI_API_KEY is set, since it is far more accurate and speaks many languages;
 * otherwise the offline English recogniser, pocketsphinx, so the service works without any account.
 */
export function createTranscriber(config: TranscriptionConfig, dependencies: TranscriberDependencies = {}): Transcriber {
  const audioProcessor = dependencies.audioProcessor ?? new FfmpegAudioProcessor();
  if (!config.OPENAI_API_KEY) {
    return new PocketsphinxTranscriber({ audioProcessor, modelDirectory: config.POCKETSPHINX_MODEL_DIR });
  }
  const client =
    dependencies.openAiClient ??
    createOpenAiClient({
      apiKey: config.OPENAI_API_KEY,
      baseURL: config.OPENAI_BASE_URL,
      timeoutMs: config.OPENAI_TIMEOUT_MS,
      maxRetries: config.OPENAI_MAX_RETRIES,
    });
  return new OpenAiTranscriber({
    client,
    audioProcessor,
    model: config.OPENAI_TRANSCRIPTION_MODEL,
    maxUploadBytes: config.OPENAI_TRANSCRIPTION_MAX_UPLOAD_BYTES,
    requestTimeoutMs: config.OPENAI_TRANSCRIPTION_TIMEOUT_MS,
    workDirectory: dependencies.workDirectory,
  });
}
