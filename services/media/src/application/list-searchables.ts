import { SearchableListing } from "@study/platform/searchable-page";
import type { NoteRepository } from "./ports/note-repository.port";
import { toSearchable, type Searchable } from "./searchable";

/** SearchableSourceService.ListSearchables: every note (or one user's) as search indexes it, in id order. */
export class ListSearchables extends SearchableListing<Searchable> {
  constructor(notes: Pick<NoteRepository, "listPageAfter">) {
    super(async (range) => (await notes.listPageAfter(range)).map(toSearchable));
  }
}
