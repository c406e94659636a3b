import { baseConfigSchema, ConfigError, postgresUrl } from "@study/platform";
import { CATALOGUE } from "@study/platform/catalogue";
import { grpcPort, serviceConfigSchema } from "@study/runtime";
import { z } from "zod";
import type { SourceAddress } from "./adapters/sources/grpc-searchable-sources";
import type { RecordType } from "./domain/search-record";

/**
 * The services that own searchable records and the types each serves through SearchableSourceService (the
 * reindex reads them; a type no listed source serves is never removed by a reindex). A source counts once the
 * catalogue names it.
 */
export const SOURCE_TYPES: Readonly<Record<string, readonly RecordType[]>> = {
  courses: ["course"],
  media: ["note"],
  study: ["flashcard_set", "quiz", "study_guide"],
  calendar: ["calendar_event"],
  documents: ["document"],
  chat: ["chat_session"],
};

/** Where each source answers: the catalogue's address setting of the service (COURSES_GRPC_ADDRESS, …). */
const SOURCE_ENTRIES = CATALOGUE.filter((entry) => entry.name in SOURCE_TYPES);

const grpcAddress = () => z.string().regex(/^[\w.-]+:\d+$/, "must be host:port");

const engineSettings = {
  SEARCH_ENGINE: z
    .enum(["embedded", "meilisearch"])
    .default("embedded")
    .describe("embedded: full-text search in search's own PostgreSQL (the default); meilisearch: a Meilisearch server."),
  MEILISEARCH_URL: z.url().optional().describe("The Meilisearch server (required when SEARCH_ENGINE=meilisearch)."),
  MEILISEARCH_API_KEY: z.string().min(1).optional().describe("Its API key (required when SEARCH_ENGINE=meilisearch)."),
  MEILISEARCH_INDEX: z
    .string()
    .regex(/^[\w-]+$/, "letters, digits, - and _ only")
    .default("search_records")
    .describe("The Meilisearch index holding the records."),
};

/** The source addresses: optional for the service (only the reindex calls the sources). */
const sourceAddressSettings = Object.fromEntries(
  SOURCE_ENTRIES.map((entry) => [
    entry.grpcAddressVariable,
    grpcAddress().optional().describe(`The ${entry.name} service; only the reindex command uses it.`),
  ]),
);

type EngineConfig = { SEARCH_ENGINE: "embedded" | "meilisearch"; MEILISEARCH_URL?: string; MEILISEARCH_API_KEY?: string };

/** Meilisearch needs its URL and key: refused at start-up with the variable named instead of failing on the first call. */
function requireMeilisearchSettings(config: EngineConfig, context: z.RefinementCtx): void {
  if (config.SEARCH_ENGINE !== "meilisearch") return;
  for (const variable of ["MEILISEARCH_URL", "MEILISEARCH_API_KEY"] as const) {
    if (!config[variable]) context.addIssue({ code: "custom", path: [variable], message: "is required when SEARCH_ENGINE=meilisearch" });
  }
}

export const searchConfigSchema = serviceConfigSchema
  .extend({ GRPC_PORT: grpcPort(50055), ...engineSettings, ...sourceAddressSettings })
  .superRefine(requireMeilisearchSettings);
export type SearchConfig = z.infer<typeof searchConfigSchema>;

/** The reindex command: the database, the engine and every source's address (all required); no broker. */
export const reindexConfigSchema = baseConfigSchema
  .extend({
    DATABASE_URL: postgresUrl(),
    ...engineSettings,
    ...Object.fromEntries(
      SOURCE_ENTRIES.map((entry) => [
        entry.grpcAddressVariable,
        grpcAddress().describe(`The ${entry.name} service, whose searchable records the reindex reads.`),
      ]),
    ),
  })
  .superRefine(requireMeilisearchSettings);
export type ReindexConfig = z.infer<typeof reindexConfigSchema>;

/** The sources with their addresses, from the catalogue's address settings. */
export function sourceAddresses(env: Record<string, unknown>): SourceAddress[] {
  return SOURCE_ENTRIES.map((entry) => {
    const address = env[entry.grpcAddressVariable];
    if (typeof address !== "string" || address === "")
      throw new ConfigError(`Invalid configuration: ${entry.grpcAddressVariable}: is required but not set`);
    return { name: entry.name, types: SOURCE_TYPES[entry.name], address };
  });
}
