import { indexing } from "@study/contracts";
import { bindUnaryHandlers } from "@study/grpc";
import type { Logger } from "@study/platform";
import type { ListSearchables } from "../../application/list-searchables";

/** SearchableSourceService: the chat sessions as search indexes them, for search's reindex. */
export function searchableSourceGrpcService(listSearchables: ListSearchables, logger: Logger): indexing.SearchableSourceServiceServer {
  return bindUnaryHandlers(logger, indexing.SearchableSourceServiceService, {
    listSearchables: (request) => listSearchables.execute({ userId: request.userId, pageToken: request.pageToken, pageSize: request.pageSize }),
  });
}
