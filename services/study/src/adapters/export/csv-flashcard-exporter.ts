import { stringify } from "csv-stringify/sync";
import type { ExportableDeck, ExportedFile, FlashcardExporter } from "../../application/ports/flashcard-exporter.port";
import { exportFileName } from "./export-file-name";

/** The header row; source_start_seconds is where the card's transcript segment starts (empty when unknown). */
export const CSV_COLUMNS = ["front", "back", "source_note_id", "source_start_seconds"] as const;

/**
 * A spreadsheet runs a cell starting with = + - @ (or a tab or carriage return before one) as a formula, so a
 * card's text could make a student's spreadsheet fetch a URL or run a command (CSV injection). Such a cell is
 * written with a leading apostrophe, which spreadsheets show as text and do not display.
 */
export function neutraliseFormula(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
}

/**
 * One row per card, in display order, after the header row. RFC 4180: CRLF between records, fields quoted when
 * they hold a comma, a quote or a line break (quotes doubled). UTF-8 with a byte-order mark, without which
 * Excel reads the file as ANSI and garbles accents. Text cells pass through `neutraliseFormula`.
 */
export class CsvFlashcardExporter implements FlashcardExporter {
  readonly format = "csv";

  async export(deck: ExportableDeck): Promise<ExportedFile> {
    const rows = deck.cards.map((card) => [
      neutraliseFormula(card.front),
      neutraliseFormula(card.back),
      card.source?.noteId ?? "",
      card.source?.startTime ?? "",
    ]);
    const csv = stringify([[...CSV_COLUMNS], ...rows], {
      bom: true,
      record_delimiter: "windows",
      // csv-stringify quotes only fields holding its own record delimiter (CRLF); a lone \n or \r needs quotes too.
      quoted_match: /[\r\n]/,
    });
    return { fileName: exportFileName(deck.title, "csv"), contentType: "text/csv; charset=utf-8", content: Buffer.from(csv, "utf8") };
  }
}
