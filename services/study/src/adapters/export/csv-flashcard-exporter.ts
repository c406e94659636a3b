import { stringify } from "csv-stringify/sync";
import type { ExportableDeck, ExportedFile, FlashcardExporter } from "../../application/ports/flashcard-exporter.port";
import { exportFileName } from "./export-file-name";

/** The header row; source_start_seconds is where the card's transcript segment starts (empty when unknown). */
export const CSV_COLUMNS = ["front", "back", "source_note_id", "source_start_seconds"] as const;

/**
 * One row per card, in display order, after the header row. RFC 4180: CRLF between records, fields quoted when
 * they hold a comma, a quote or a line break (quotes doubled). UTF-8 with a byte-order mark, without which
 * Excel reads the file as ANSI and garbles accents.
 */
export class CsvFlashcardExporter implements FlashcardExporter {
  readonly format = "csv";

  async export(deck: ExportableDeck): Promise<ExportedFile> {
    const rows = deck.cards.map((card) => [card.front, card.back, card.source?.noteId ?? "", card.source?.startTime ?? ""]);
    const csv = stringify([[...CSV_COLUMNS], ...rows], {
      bom: true,
      record_delimiter: "windows",
      // csv-stringify quotes only fields holding its own record delimiter (CRLF); a lone \n or \r needs quotes too.
      quoted_match: /[\r\n]/,
    });
    return { fileName: exportFileName(deck.title, "csv"), contentType: "text/csv; charset=utf-8", content: Buffer.from(csv, "utf8") };
  }
}
