import type { SourceReference } from "../../domain/study-material";

export interface ExportableCard {
  id: string;
  front: string;
  back: string;
  order: number;
  source: SourceReference | null;
}

export interface ExportableDeck {
  id: string;
  title: string;
  description: string;
  courseName: string;
  noteTitle: string | null;
  /** In display order. */
  cards: ExportableCard[];
}

export const EXPORT_FORMATS = ["csv", "apkg"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportedFile {
  fileName: string;
  contentType: string;
  content: Buffer;
}

/** Writes a flashcard set in a format another tool imports (CSV for spreadsheets, .apkg for Anki). */
export interface FlashcardExporter {
  readonly format: ExportFormat;
  export(deck: ExportableDeck): Promise<ExportedFile>;
}
