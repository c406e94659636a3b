import { SearchableListing } from "@study/platform/searchable-page";
import type { DocumentRepository } from "./ports/document-repository.port";
import { toSearchable, type Searchable } from "./searchable";

/** SearchableSourceService.ListSearchables: every document (or one user's) as search indexes it, in id order. */
export class ListSearchables extends SearchableListing<Searchable> {
  constructor(documents: Pick<DocumentRepository, "listPageAfter">) {
    super(async (range) => (await documents.listPageAfter(range)).map(toSearchable));
  }
}
