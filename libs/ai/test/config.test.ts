import { loadConfig } from "@study/platform";
import { baseConfigSchema } from "@study/platform";
import { openAiConfigSchema } from "@study/ai";

describe("openAiConfigSchema", () => {
  it("works offline by default: no key, gpt-4o-mini, 60 s timeout, 2 retries", () => {
    expect(loadConfig(openAiConfigSchema, {})).toEqual({ OPENAI_MODEL: "gpt-4o-mini", OPENAI_TIMEOUT_MS: 60_000, OPENAI_MAX_RETRIES: 2 });
  });

  it("reads every setting, coercing numbers", () => {
    expect(
      loadConfig(openAiConfigSchema, {
        OPENAI_API_KEY: "sk-live",
        OPENAI_BASE_URL: "http://llm.internal:8000/v1",
        OPENAI_MODEL: "llama-3.1-8b-instruct",
        OPENAI_TIMEOUT_MS: "15000",
        OPENAI_MAX_RETRIES: "0",
      }),
    ).toEqual({
      OPENAI_API_KEY: "sk-live",
      OPENAI_BASE_URL: "http://llm.internal:8000/v1",
      OPENAI_MODEL: "llama-3.1-8b-instruct",
      OPENAI_TIMEOUT_MS: 15_000,
      OPENAI_MAX_RETRIES: 0,
    });
  });

  it("treats empty variables (OPENAI_API_KEY= in a compose file) as unset", () => {
    expect(loadConfig(openAiConfigSchema, { OPENAI_API_KEY: "", OPENAI_BASE_URL: "", OPENAI_MODEL: "", OPENAI_TIMEOUT_MS: "" })).toEqual({
      OPENAI_MODEL: "gpt-4o-mini",
      OPENAI_TIMEOUT_MS: 60_000,
      OPENAI_MAX_RETRIES: 2,
    });
  });

  it("refuses a base URL that is not a URL and a non-positive timeout, naming the variables", () => {
    expect(() => loadConfig(openAiConfigSchema, { OPENAI_BASE_URL: "llm.internal:8000", OPENAI_TIMEOUT_MS: "0" })).toThrow(
      /^Invalid configuration: OPENAI_BASE_URL: must be an http\(s\):\/\/ URL; OPENAI_TIMEOUT_MS: /,
    );
  });

  it("extends a process's schema", () => {
    const schema = baseConfigSchema.extend(openAiConfigSchema.shape);
    expect(loadConfig(schema, { OPENAI_API_KEY: "k" })).toMatchObject({ NODE_ENV: "development", OPENAI_API_KEY: "k", OPENAI_MODEL: "gpt-4o-mini" });
  });
});
