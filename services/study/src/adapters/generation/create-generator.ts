import { openAiClientFromConfig, openAiConfigSchema } from "@study/ai";
import { emptyAsUnset, type Logger } from "@study/platform";
import { z } from "zod";
import type { StudyMaterialGenerator } from "../../application/ports/study-material-generator.port";
import { OfflineStudyMaterialGenerator } from "./offline/offline-study-material-generator";
import { DEFAULT_GENERATION_TIMEOUT_MS, DEFAULT_MAX_INPUT_CHARS, OpenAiStudyMaterialGenerator } from "./openai/openai-study-material-generator";

/**
 * Generation settings, as a fragment for the service's configuration schema
 * (`schema.extend(generationConfigSchema.shape)`); includes the shared OPENAI_* settings of @study/ai.
 */
export const generationConfigSchema = openAiConfigSchema.extend({
  OPENAI_MAX_INPUT_CHARS: z
    .preprocess(emptyAsUnset, z.coerce.number().int().min(1_000).default(DEFAULT_MAX_INPUT_CHARS))
    .describe("Notes longer than this many characters are sent to the model as evenly spaced passages."),
  OPENAI_GENERATION_TIMEOUT_MS: z
    .preprocess(emptyAsUnset, z.coerce.number().int().positive().default(DEFAULT_GENERATION_TIMEOUT_MS))
    .describe("Per generation request; writing a long quiz or guide outlasts OPENAI_TIMEOUT_MS's default."),
});

export type GenerationConfig = z.infer<typeof generationConfigSchema>;

/**
 * The generator the configuration asks for: the chat model OPENAI_MODEL (at OPENAI_BASE_URL when set) when
 * OPENAI_API_KEY is set; otherwise the offline algorithmic generator, so the service works without an account.
 */
export function createStudyMaterialGenerator(config: GenerationConfig, logger?: Logger): StudyMaterialGenerator {
  const client = openAiClientFromConfig(config);
  if (!client) return new OfflineStudyMaterialGenerator();
  return new OpenAiStudyMaterialGenerator({
    client,
    model: config.OPENAI_MODEL,
    maxInputChars: config.OPENAI_MAX_INPUT_CHARS,
    requestTimeoutMs: config.OPENAI_GENERATION_TIMEOUT_MS,
    logger,
  });
}
