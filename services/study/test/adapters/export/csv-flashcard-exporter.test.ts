import type { ExportableDeck } from "../../../src/application/ports/flashcard-exporter.port";
import { CsvFlashcardExporter } from "../../../src/adapters/export/csv-flashcard-exporter";
import { runPython } from "./python";

const deck: ExportableDeck = {
  id: "set-1",
  title: "Économie : l'offre & la demande",
  description: "",
  courseName: "Macro 101",
  noteTitle: "Lecture 3",
  cards: [
    { id: "c1", front: 'What does "ceteris paribus" mean?', back: "All else equal, Latin", order: 0, source: { noteId: "note-1", startTime: 12.5 } },
    {
      id: "c2",
      front: "Two lines\nin one cell",
      back: "Windows\r\nline break, and a lone\rCR",
      order: 1,
      source: { noteId: "note-1", startTime: null },
    },
    { id: "c3", front: "Größe, Ñandú, 日本語, emoji 📈", back: "  padded  ", order: 2, source: null },
  ],
};

/** The rows as Python's csv module reads the file (UTF-8 with BOM, RFC 4180). */
function parseWithPython(content: Buffer): string[][] {
  const script = `
import csv, io, json, sys
text = sys.stdin.buffer.read().decode("utf-8-sig")
print(json.dumps(list(csv.reader(io.StringIO(text, newline=""), strict=True))))
`;
  return runPython<string[][]>(script, [], content);
}

describe("CSV flashcard export", () => {
  const exporter = new CsvFlashcardExporter();

  it("names the file after the set and declares UTF-8 CSV", async () => {
    const file = await exporter.export(deck);
    expect(exporter.format).toBe("csv");
    expect(file.fileName).toBe("economie-l-offre-la-demande.csv");
    expect(file.contentType).toBe("text/csv; charset=utf-8");
  });

  it("writes UTF-8 with a byte-order mark and CRLF between records", async () => {
    const { content } = await exporter.export(deck);
    expect([...content.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = content.toString("utf8").slice(1);
    expect(text.startsWith("front,back,source_note_id,source_start_seconds\r\n")).toBe(true);
    expect(text.endsWith("\r\n")).toBe(true);
    expect(text).toContain('"What does ""ceteris paribus"" mean?","All else equal, Latin",note-1,12.5\r\n');
  });

  it("reads back cell for cell: quotes, commas, line breaks, accents and emoji intact", async () => {
    const { content } = await exporter.export(deck);
    expect(parseWithPython(content)).toEqual([
      ["front", "back", "source_note_id", "source_start_seconds"],
      ['What does "ceteris paribus" mean?', "All else equal, Latin", "note-1", "12.5"],
      ["Two lines\nin one cell", "Windows\r\nline break, and a lone\rCR", "note-1", ""],
      ["Größe, Ñandú, 日本語, emoji 📈", "  padded  ", "", ""],
    ]);
  });

  it("writes cells that a spreadsheet would run as formulas as text (leading apostrophe), leaving other text alone", async () => {
    const cards = [
      { id: "f1", front: '=HYPERLINK("http://evil.example","click")', back: "+1 555 0100", order: 0, source: null },
      { id: "f2", front: "-5 °C is the melting point?", back: "@SUM(A1:A9)", order: 1, source: null },
      { id: "f3", front: "\t=1+1", back: "a = b + c", order: 2, source: null },
    ];
    const { content } = await exporter.export({ ...deck, cards });
    expect(parseWithPython(content).slice(1)).toEqual([
      ['\'=HYPERLINK("http://evil.example","click")', "'+1 555 0100", "", ""],
      ["'-5 °C is the melting point?", "'@SUM(A1:A9)", "", ""],
      ["'\t=1+1", "a = b + c", "", ""],
    ]);
  });

  it("writes only the header for a set without cards, and falls back to a generic file name", async () => {
    const file = await exporter.export({ ...deck, title: "日本語", cards: [] });
    expect(file.fileName).toBe("flashcards.csv");
    expect(parseWithPython(file.content)).toEqual([["front", "back", "source_note_id", "source_start_seconds"]]);
  });
});
