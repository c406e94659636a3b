import type { MaterialOrigin } from "../domain/flashcard-set";
import type { FlashcardSetRepository, MaterialRepository, QuizRepository, StudyGuideRepository } from "./ports/study-repositories.port";
import { SearchableListing, type ReadSearchables } from "@study/platform/searchable-page";
import { flashcardSetToSearchable, quizToSearchable, studyGuideToSearchable, type Searchable } from "./searchable";

const readAs =
  <M extends MaterialOrigin>(
    repository: Pick<MaterialRepository<M>, "listPageAfter">,
    toSearchable: (material: M) => Searchable,
  ): ReadSearchables<Searchable> =>
  async (range) =>
    (await repository.listPageAfter(range)).map(toSearchable);

/**
 * SearchableSourceService.ListSearchables: every flashcard set, quiz and study guide (or one user's) as search
 * indexes it. Reads the tables in turn, each in id order; a page may end in one table and go on in the next (the
 * page token names the table).
 */
export class ListSearchables extends SearchableListing<Searchable> {
  constructor(repositories: {
    sets: Pick<FlashcardSetRepository, "listPageAfter">;
    quizzes: Pick<QuizRepository, "listPageAfter">;
    guides: Pick<StudyGuideRepository, "listPageAfter">;
  }) {
    super({
      flashcard_set: readAs(repositories.sets, flashcardSetToSearchable),
      quiz: readAs(repositories.quizzes, quizToSearchable),
      study_guide: readAs(repositories.guides, studyGuideToSearchable),
    });
  }
}
