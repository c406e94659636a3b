import { loadConfig } from "@study/platform";
import { FfmpegAudioProcessor } from "../../../src/adapters/audio/ffmpeg-audio-processor";
import { createTranscriber, transcriptionConfigSchema } from "../../../src/adapters/transcription/create-transcriber";
import { OpenAiTranscriber } from "../../../src/adapters/transcription/openai-transcriber";
import { PocketsphinxTranscriber } from "../../../src/adapters/transcription/pocketsphinx-transcriber";

describe("createTranscriber", () => {
  it("uses offline pocketsphinx when no OpenAI key is configured (an empty variable counts as none)", () => {
    for (const env of [{}, { OPENAI_API_KEY: "" }]) {
      const transcriber = createTranscriber(loadConfig(transcriptionConfigSchema, env));
      expect(transcriber).toBeInstanceOf(PocketsphinxTranscriber);
      expect(transcriber.name).toBe("pocketsphinx");
    }
  });

  it("uses the OpenAI transcription API with the configured model when a key is set", () => {
    const config = loadConfig(transcriptionConfigSchema, {
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: "http://whisper.internal:8000/v1",
      OPENAI_TRANSCRIPTION_MODEL: "Systran/faster-whisper-small",
    });
    const transcriber = createTranscriber(config, { audioProcessor: new FfmpegAudioProcessor() });
    expect(transcriber).toBeInstanceOf(OpenAiTranscriber);
    expect(transcriber.name).toBe("openai:Systran/faster-whisper-small");
  });

  it("has defaults for every transcription setting and refuses bad values with one line", () => {
    expect(loadConfig(transcriptionConfigSchema, {})).toEqual({
      OPENAI_MODEL: "gpt-4o-mini",
      OPENAI_TIMEOUT_MS: 60_000,
      OPENAI_MAX_RETRIES: 2,
      OPENAI_TRANSCRIPTION_MODEL: "whisper-1",
      OPENAI_TRANSCRIPTION_MAX_UPLOAD_BYTES: 25 * 1024 * 1024,
      OPENAI_TRANSCRIPTION_TIMEOUT_MS: 600_000,
      POCKETSPHINX_MODEL_DIR: "/usr/share/pocketsphinx/model/en-us",
    });
    expect(() => loadConfig(transcriptionConfigSchema, { OPENAI_TRANSCRIPTION_MAX_UPLOAD_BYTES: "1000" })).toThrow(
      /^Invalid configuration: OPENAI_TRANSCRIPTION_MAX_UPLOAD_BYTES: /,
    );
  });
});
