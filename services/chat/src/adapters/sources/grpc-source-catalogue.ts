import { indexing } from "@study/contracts";
import { createClient } from "@study/grpc";
import type { ListedSource, SourceCatalogue } from "../../application/ports/material-sources.port";
import type { SourceType } from "../../domain/passage";

/** A page of a large source may take a while to read and describe. */
const LIST_DEADLINE_MS = 60_000;

const TYPE_OF_SOURCE: Record<SourceType, indexing.SearchableType> = {
  note: indexing.SearchableType.SEARCHABLE_TYPE_NOTE,
  document: indexing.SearchableType.SEARCHABLE_TYPE_DOCUMENT,
};

/**
 * Every note and document through their owners' SearchableSourceService (the listing search's reindex reads):
 * media lists the notes, documents the documents, with their owners. Only ids and owners are used; the
 * passages come from GetNote / GetDocumentText.
 */
export class GrpcSourceCatalogue implements SourceCatalogue {
  private readonly clients: Record<SourceType, ReturnType<typeof createClient<indexing.SearchableSourceServiceClient>>>;

  constructor(addresses: { media: string; documents: string }) {
    const client = (address: string) =>
      createClient(indexing.SearchableSourceServiceClient, indexing.SearchableSourceServiceService, address, {
        deadlineMs: LIST_DEADLINE_MS,
      });
    this.clients = { note: client(addresses.media), document: client(addresses.documents) };
  }

  async list(
    sourceType: SourceType,
    query: { userId?: string; pageToken?: string; pageSize: number },
  ): Promise<{ sources: ListedSource[]; nextPageToken?: string }> {
    const owner = sourceType === "note" ? "media" : "documents";
    const response = await this.clients[sourceType]
      .listSearchables({ userId: query.userId, pageToken: query.pageToken ?? "", pageSize: query.pageSize })
      .catch((error: unknown) => {
        throw new Error(`listing the ${sourceType}s of ${owner} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      });
    const sources = response.searchables
      .filter((searchable) => searchable.type === TYPE_OF_SOURCE[sourceType])
      .map((searchable) => ({ sourceType, sourceId: searchable.id, userId: searchable.userId }));
    return { sources, nextPageToken: response.nextPageToken || undefined };
  }

  close(): void {
    this.clients.note.close();
    this.clients.document.close();
  }
}
