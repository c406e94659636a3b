import type { MaterialOrigin } from "../domain/flashcard-set";
import type { FlashcardSetRepository, MaterialRepository, QuizRepository, StudyGuideRepository } from "./ports/study-repositories.port";
import { searchableOwner, searchablePageSize } from "@study/platform/searchable-page";
import { decodePageToken, encodePageToken } from "./searchable-page";
import { flashcardSetToSearchable, quizToSearchable, studyGuideToSearchable, type Searchable } from "./searchable";

export interface SearchablePage {
  searchables: Searchable[];
  /** Empty after the last page. */
  nextPageToken: string;
}

/** The tables in the order ListSearchables reads them; a page token names one of them. */
export const SEARCHABLE_TABLES = ["flashcard_set", "quiz", "study_guide"] as const;
type Table = (typeof SEARCHABLE_TABLES)[number];

interface Source {
  table: Table;
  read(query: { userId?: string; afterId: string | null; limit: number }): Promise<Searchable[]>;
}

function source<M extends MaterialOrigin>(
  table: Table,
  repository: Pick<MaterialRepository<M>, "listPageAfter">,
  toSearchable: (material: M) => Searchable,
): Source {
  return { table, read: async (query) => (await repository.listPageAfter(query)).map(toSearchable) };
}

/**
 * SearchableSourceService.ListSearchables: every flashcard set, quiz and study guide (or one user's) as search
 * indexes it. Reads the tables in turn, each in id order; a page may end in one table and go on in the next.
 */
export class ListSearchables {
  private readonly sources: Source[];

  constructor(repositories: {
    sets: Pick<FlashcardSetRepository, "listPageAfter">;
    quizzes: Pick<QuizRepository, "listPageAfter">;
    guides: Pick<StudyGuideRepository, "listPageAfter">;
  }) {
    this.sources = [
      source("flashcard_set", repositories.sets, flashcardSetToSearchable),
      source("quiz", repositories.quizzes, quizToSearchable),
      source("study_guide", repositories.guides, studyGuideToSearchable),
    ];
  }

  async execute(query: { userId?: string; pageToken: string; pageSize: number }): Promise<SearchablePage> {
    const userId = searchableOwner(query.userId);
    const limit = searchablePageSize(query.pageSize);
    const position = decodePageToken(query.pageToken, SEARCHABLE_TABLES);
    let index = position ? SEARCHABLE_TABLES.indexOf(position.table) : 0;
    let afterId = position?.lastId ?? null;
    const searchables: Searchable[] = [];
    for (; index < this.sources.length; index += 1, afterId = null) {
      const wanted = limit - searchables.length;
      // One row more than wanted tells whether this table goes on after the page.
      const read = await this.sources[index].read({ userId, afterId, limit: wanted + 1 });
      searchables.push(...read.slice(0, wanted));
      if (searchables.length < limit) continue;
      const last = searchables[searchables.length - 1];
      const more = read.length > wanted || (await this.anyAfter(index, userId));
      return { searchables, nextPageToken: more ? encodePageToken({ table: this.sources[index].table, lastId: last.id }) : "" };
    }
    return { searchables, nextPageToken: "" };
  }

  /** Whether a table after `index` holds a record, so that a page ending a table is not the last one. */
  private async anyAfter(index: number, userId: string | undefined): Promise<boolean> {
    for (const later of this.sources.slice(index + 1)) {
      if ((await later.read({ userId, afterId: null, limit: 1 })).length > 0) return true;
    }
    return false;
  }
}
