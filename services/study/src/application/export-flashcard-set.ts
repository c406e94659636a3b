import { AppError } from "@study/platform/errors";
import type { ExportedFile, ExportFormat, FlashcardExporter } from "./ports/flashcard-exporter.port";
import type { MaterialCatalog } from "./read-material";
import type { FlashcardSet } from "../domain/flashcard-set";

/** Writes one of the user's flashcard sets as a file another tool imports. */
export class ExportFlashcardSet {
  private readonly exporters: Map<ExportFormat, FlashcardExporter>;

  constructor(
    private readonly sets: MaterialCatalog<FlashcardSet>,
    exporters: FlashcardExporter[],
  ) {
    this.exporters = new Map(exporters.map((exporter) => [exporter.format, exporter]));
  }

  async execute(userId: string, flashcardSetId: string, format: ExportFormat, courseName: string): Promise<ExportedFile> {
    const exporter = this.exporters.get(format);
    if (!exporter) throw AppError.validation("Invalid export", [{ field: "format", message: "must be csv or apkg" }]);
    const set = await this.sets.get(userId, flashcardSetId);
    return exporter.export({
      id: set.id,
      title: set.title,
      description: set.description ?? "",
      courseName,
      noteTitle: set.noteTitle,
      cards: set.flashcards.map((card) => ({ id: card.id, front: card.front, back: card.back, order: card.order, source: card.source })),
    });
  }
}
