import { search as api } from "@study/contracts";
import { prismaOptions } from "@study/db";
import type { ServiceDefinition } from "@study/runtime";
import { PrismaIndexLedger } from "./adapters/db/prisma-index-ledger";
import { startDomainEventsConsumer } from "./adapters/events/domain-events-consumer";
import { searchGrpcService } from "./adapters/grpc/search-grpc-service";
import { GetSearchFilters } from "./application/get-search-filters";
import { GetSuggestions } from "./application/get-suggestions";
import { IndexRecords } from "./application/index-records";
import { RemoveRecords } from "./application/remove-records";
import { Search } from "./application/search";
import { searchConfigSchema, type SearchConfig } from "./config";
import { PrismaClient } from "./generated/prisma/client";
import { searchMigrations } from "./migrations";
import { openSearchIndex } from "./search-index";

/** The composition of the search service: ledger and index → use cases → gRPC, and the domain-events consumer. */
export const searchService: ServiceDefinition<PrismaClient, SearchConfig> = {
  ...searchMigrations,
  configSchema: searchConfigSchema,
  createDatabase: (_config, pool) => new PrismaClient(prismaOptions(pool)),
  async compose({ config, db, consumerLink, logger }) {
    const index = await openSearchIndex(config, db, logger);
    const ledger = new PrismaIndexLedger(db);

    await startDomainEventsConsumer({
      ...consumerLink,
      // Two connections per event in flight (see the option), and two left for searches.
      prefetch: Math.max(1, Math.floor((config.DATABASE_POOL_SIZE - 2) / 2)),
      indexRecords: new IndexRecords(ledger, index),
      removeRecords: new RemoveRecords(ledger, index),
    });

    const implementation = searchGrpcService(
      {
        search: new Search(index, ledger, logger),
        getSearchFilters: new GetSearchFilters(ledger, logger),
        getSuggestions: new GetSuggestions(index, logger),
      },
      logger,
    );
    return [{ definition: api.SearchServiceService, implementation }];
  },
};
