import { newId } from "@study/grpc/ids";
import { newCardSchedule } from "../domain/card-scheduler";
import type { FlashcardSet } from "../domain/flashcard-set";
import { flashcardCount, type GenerationCommand } from "../domain/generation-request";
import { assertValidFlashcardSet, shortfallMessage } from "../domain/study-material";
import type { GenerationSources } from "./generation-sources";
import { generateOnce, type GenerationOutcome } from "./generate-once";
import type { StudyMaterialGenerator } from "./ports/study-material-generator.port";
import type { FlashcardSetRepository } from "./ports/study-repositories.port";
import { flashcardSetCreated } from "./study-events";

export class GenerateFlashcards {
  constructor(
    private readonly sets: FlashcardSetRepository,
    private readonly generator: StudyMaterialGenerator,
    private readonly sources: GenerationSources,
  ) {}

  async execute(command: GenerationCommand & { cardCount?: number }, signal?: AbortSignal): Promise<GenerationOutcome<FlashcardSet>> {
    const cardCount = flashcardCount(command.cardCount);
    const request = await this.sources.read(command);
    let shortfall: string | null = null;
    const outcome = await generateOnce({
      kind: "flashcards",
      request,
      repository: this.sets,
      createdEvent: flashcardSetCreated,
      build: async (origin) => {
        const generated = await this.generator.generateFlashcards({ ...request, cardCount }, signal);
        assertValidFlashcardSet(generated);
        shortfall = shortfallMessage(generated.cards.length, cardCount, "cards", generated.shortfallReason);
        return {
          ...origin,
          title: generated.title.trim(),
          description: generated.description.trim() || null,
          generator: this.generator.name,
          flashcards: generated.cards.map((card, order) => ({
            id: newId(),
            flashcardSetId: origin.id,
            front: card.front.trim(),
            back: card.back.trim(),
            order,
            source: card.source,
            schedule: newCardSchedule(origin.createdAt),
          })),
        };
      },
    });
    return { ...outcome, shortfall: outcome.created ? shortfall : null };
  }
}
