import { indexing } from "@study/contracts";
import { createClient } from "@study/grpc";
import type { Logger } from "@study/platform";
import type { SearchablePage, SearchableSource, SearchableSources } from "../../application/ports/searchable-sources.port";
import type { SearchRecord } from "../../domain/search-record";
import { fromSearchable } from "../contracts/searchable-mapping";

/** A source service and where it answers. */
export interface SourceAddress extends SearchableSource {
  address: string;
}

/** A page of a large source may take a while to read and describe. */
const LIST_DEADLINE_MS = 60_000;

/** The owners' SearchableSourceService over gRPC, one client per source. */
export class GrpcSearchableSources implements SearchableSources {
  readonly sources: readonly SearchableSource[];
  private readonly clients = new Map<string, ReturnType<typeof createClient<indexing.SearchableSourceServiceClient>>>();

  constructor(
    addresses: readonly SourceAddress[],
    private readonly logger: Logger,
  ) {
    this.sources = addresses.map(({ name, types }) => ({ name, types }));
    for (const source of addresses) {
      this.clients.set(
        source.name,
        createClient(indexing.SearchableSourceServiceClient, indexing.SearchableSourceServiceService, source.address, {
          deadlineMs: LIST_DEADLINE_MS,
        }),
      );
    }
  }

  async list(source: string, query: { userId?: string; pageToken?: string; pageSize: number }): Promise<SearchablePage> {
    const client = this.clients.get(source);
    if (!client) throw new Error(`unknown searchable source ${source}`);
    const response = await client
      .listSearchables({ userId: query.userId, pageToken: query.pageToken ?? "", pageSize: query.pageSize })
      .catch((error: unknown) => {
        throw new Error(`listing the searchables of ${source} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      });
    const records: SearchRecord[] = [];
    for (const searchable of response.searchables) {
      const mapped = fromSearchable(searchable);
      if ("problem" in mapped) this.logger.error({ source, problem: mapped.problem }, "searchable that cannot be indexed; skipped");
      else records.push(mapped.record);
    }
    return { records, nextPageToken: response.nextPageToken || undefined };
  }

  close(): void {
    for (const client of this.clients.values()) client.close();
  }
}
