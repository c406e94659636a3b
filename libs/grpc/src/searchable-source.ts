import { indexing } from "@study/contracts";
import type { Logger } from "@study/platform";
import type { SearchablePage, SearchablePageQuery } from "@study/platform/searchable-page";
import { bindUnaryHandlers } from "./unary-handlers";

/** A service's ListSearchables use case (a `SearchableListing` of @study/platform/searchable-page). */
export interface SearchableListingUseCase {
  execute(query: SearchablePageQuery): Promise<SearchablePage<indexing.Searchable>>;
}

/** SearchableSourceService: a service's records as search indexes them, for search's reindex. */
export function searchableSourceGrpcService(listSearchables: SearchableListingUseCase, logger: Logger): indexing.SearchableSourceServiceServer {
  return bindUnaryHandlers(logger, indexing.SearchableSourceServiceService, {
    listSearchables: (request) => listSearchables.execute({ userId: request.userId, pageToken: request.pageToken, pageSize: request.pageSize }),
  });
}
