import { strToU8, zipSync } from "fflate";
import type { ExportableDeck, ExportedFile, FlashcardExporter } from "../../application/ports/flashcard-exporter.port";
import { buildAnkiCollection } from "./anki-collection";
import { exportFileName } from "./export-file-name";

/**
 * An Anki package (.apkg): a zip holding the collection database (`collection.anki2`, see anki-collection.ts)
 * and the media index (`media`, here `{}`: cards carry no media). Anki imports it into a deck named after the
 * course and the set.
 */
export class ApkgFlashcardExporter implements FlashcardExporter {
  readonly format = "apkg";

  /** `clock` dates the notes and cards (and seeds their ids). */
  constructor(private readonly clock: () => Date = () => new Date()) {}

  async export(deck: ExportableDeck): Promise<ExportedFile> {
    const collection = await buildAnkiCollection(deck, this.clock());
    const content = zipSync({ "collection.anki2": collection, media: strToU8("{}") });
    return { fileName: exportFileName(deck.title, "apkg"), contentType: "application/octet-stream", content: Buffer.from(content) };
  }
}
