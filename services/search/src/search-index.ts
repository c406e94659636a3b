import type { Logger } from "@study/platform";
import { MeilisearchSearchIndex } from "./adapters/index/meilisearch/meilisearch-search-index";
import { PostgresSearchIndex } from "./adapters/index/postgres/postgres-search-index";
import type { SearchIndex } from "./application/ports/search-index.port";
import type { SearchConfig } from "./config";
import type { PrismaClient } from "./generated/prisma/client";

type EngineSettings = Pick<SearchConfig, "SEARCH_ENGINE" | "MEILISEARCH_URL" | "MEILISEARCH_API_KEY" | "MEILISEARCH_INDEX">;

/** The index SEARCH_ENGINE chooses: the embedded one in search's own PostgreSQL, or Meilisearch. */
export async function openSearchIndex(config: EngineSettings, db: PrismaClient, logger: Logger): Promise<SearchIndex> {
  if (config.SEARCH_ENGINE === "meilisearch") {
    // The config schema refuses meilisearch without a URL, so this only narrows the type.
    if (!config.MEILISEARCH_URL) throw new Error("MEILISEARCH_URL is required when SEARCH_ENGINE=meilisearch");
    logger.info({ url: config.MEILISEARCH_URL, index: config.MEILISEARCH_INDEX }, "search index: meilisearch");
    return MeilisearchSearchIndex.open(
      { url: config.MEILISEARCH_URL, apiKey: config.MEILISEARCH_API_KEY, indexName: config.MEILISEARCH_INDEX },
      logger,
    );
  }
  logger.info("search index: embedded (PostgreSQL)");
  return new PostgresSearchIndex(db);
}
