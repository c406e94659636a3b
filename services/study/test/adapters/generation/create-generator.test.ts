import { loadConfig } from "@study/platform";
import { createStudyMaterialGenerator, generationConfigSchema } from "../../../src/adapters/generation/create-generator";
import { OpenAiStudyMaterialGenerator } from "../../../src/adapters/generation/openai/openai-study-material-generator";

describe("generationConfigSchema", () => {
  it("defaults the model and the input and time limits", () => {
    expect(loadConfig(generationConfigSchema, {})).toMatchObject({
      OPENAI_MODEL: "gpt-4o-mini",
      OPENAI_MAX_INPUT_CHARS: 60_000,
      OPENAI_GENERATION_TIMEOUT_MS: 180_000,
    });
    expect(loadConfig(generationConfigSchema, { OPENAI_MAX_INPUT_CHARS: "20000", OPENAI_GENERATION_TIMEOUT_MS: "" })).toMatchObject({
      OPENAI_MAX_INPUT_CHARS: 20_000,
      OPENAI_GENERATION_TIMEOUT_MS: 180_000,
    });
    expect(() => loadConfig(generationConfigSchema, { OPENAI_MAX_INPUT_CHARS: "10" })).toThrow(/OPENAI_MAX_INPUT_CHARS/);
  });
});

describe("createStudyMaterialGenerator", () => {
  it("generates offline when no OpenAI key is configured", () => {
    expect(createStudyMaterialGenerator(loadConfig(generationConfigSchema, {})).name).toBe("offline");
    expect(createStudyMaterialGenerator(loadConfig(generationConfigSchema, { OPENAI_API_KEY: "" })).name).toBe("offline");
  });

  it("uses the chat model OPENAI_MODEL when a key is set", () => {
    const generator = createStudyMaterialGenerator(loadConfig(generationConfigSchema, { OPENAI_API_KEY: "sk-test", OPENAI_MODEL: "gpt-4.1-mini" }));
    expect(generator).toBeInstanceOf(OpenAiStudyMaterialGenerator);
    expect(generator.name).toBe("openai:gpt-4.1-mini");
  });
});
