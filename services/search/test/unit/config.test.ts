import { loadConfig } from "@study/platform";
import { reindexConfigSchema, searchConfigSchema, sourceAddresses } from "../../src/config";

const base = { DATABASE_URL: "postgresql://localhost/search", RABBITMQ_URL: "amqp://localhost" };
const sources = {
  COURSES_GRPC_ADDRESS: "courses:50051",
  MEDIA_GRPC_ADDRESS: "media:50053",
  STUDY_GRPC_ADDRESS: "study:50054",
  CALENDAR_GRPC_ADDRESS: "calendar:50056",
  DOCUMENTS_GRPC_ADDRESS: "documents:50057",
  CHAT_GRPC_ADDRESS: "chat:50059",
};

describe("search configuration", () => {
  it("defaults to the embedded engine on gRPC port 50055, without source addresses", () => {
    expect(loadConfig(searchConfigSchema, base)).toMatchObject({ GRPC_PORT: 50055, SEARCH_ENGINE: "embedded", MEILISEARCH_INDEX: "search_records" });
  });

  it("requires MEILISEARCH_URL and MEILISEARCH_API_KEY with SEARCH_ENGINE=meilisearch, naming them", () => {
    expect(() => loadConfig(searchConfigSchema, { ...base, SEARCH_ENGINE: "meilisearch" })).toThrow(
      "Invalid configuration: MEILISEARCH_URL: is required when SEARCH_ENGINE=meilisearch; MEILISEARCH_API_KEY: is required when SEARCH_ENGINE=meilisearch",
    );
    expect(
      loadConfig(searchConfigSchema, {
        ...base,
        SEARCH_ENGINE: "meilisearch",
        MEILISEARCH_URL: "http://meilisearch:7700",
        MEILISEARCH_API_KEY: "key",
      }),
    ).toMatchObject({ SEARCH_ENGINE: "meilisearch", MEILISEARCH_URL: "http://meilisearch:7700" });
    expect(() => loadConfig(searchConfigSchema, { ...base, SEARCH_ENGINE: "elastic" })).toThrow(/SEARCH_ENGINE/);
  });

  it("gives the reindex the sources of the catalogue, each at its address setting, all required", () => {
    expect(sourceAddresses(loadConfig(reindexConfigSchema, { ...base, ...sources }))).toEqual([
      { name: "courses", types: ["course"], address: "courses:50051" },
      { name: "media", types: ["note"], address: "media:50053" },
      { name: "study", types: ["flashcard_set", "quiz", "study_guide"], address: "study:50054" },
      { name: "calendar", types: ["calendar_event"], address: "calendar:50056" },
      { name: "documents", types: ["document"], address: "documents:50057" },
      { name: "chat", types: ["chat_session"], address: "chat:50059" },
    ]);
    expect(() => loadConfig(reindexConfigSchema, { ...base, COURSES_GRPC_ADDRESS: "courses:50051", STUDY_GRPC_ADDRESS: "study:50054" })).toThrow(
      "Invalid configuration: MEDIA_GRPC_ADDRESS: is required but not set",
    );
    expect(() => sourceAddresses(loadConfig(searchConfigSchema, base))).toThrow("COURSES_GRPC_ADDRESS: is required but not set");
  });
});
