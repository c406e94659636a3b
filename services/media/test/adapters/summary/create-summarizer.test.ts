import { openAiConfigSchema } from "@study/ai";
import { loadConfig } from "@study/platform";
import { createSummarizer } from "../../../src/adapters/summary/create-summarizer";
import { ExtractiveSummarizer } from "../../../src/adapters/summary/extractive-summarizer";
import { OpenAiSummarizer } from "../../../src/adapters/summary/openai-summarizer";

describe("createSummarizer", () => {
  it("summarises offline when no OpenAI key is configured", () => {
    const summarizer = createSummarizer(loadConfig(openAiConfigSchema, {}));
    expect(summarizer).toBeInstanceOf(ExtractiveSummarizer);
    expect(summarizer.name).toBe("extractive");
  });

  it("uses the chat model OPENAI_MODEL when a key is set", () => {
    const summarizer = createSummarizer(loadConfig(openAiConfigSchema, { OPENAI_API_KEY: "sk-test", OPENAI_MODEL: "gpt-4.1-mini" }));
    expect(summarizer).toBeInstanceOf(OpenAiSummarizer);
    expect(summarizer.name).toBe("openai:gpt-4.1-mini");
  });
});
