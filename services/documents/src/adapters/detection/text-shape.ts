/**
 * The shape of decoded text: CSV (a consistent delimiter over the records) or Markdown (its structure). Both look
 * at the head of the file only (the detector's head), so a cut last line is ignored unless the text is complete.
 */

const CSV_DELIMITERS = [",", ";", "\t"] as const;
/** The records looked at: enough to see a table's shape. */
const CSV_RECORDS_CHECKED = 50;

/**
 * CSV when at least two records (lines, with quoted fields that may hold delimiters, doubled quotes and line
 * breaks) all have the same number (at least one) of the same delimiter outside quotes: two columns or more.
 * A blank line before the end breaks the shape (prose has those, tables do not).
 */
export function looksLikeCsv(text: string, complete: boolean): boolean {
  const records = csvRecords(text, complete);
  if (records === null) return false;
  while (records.length > 0 && records[records.length - 1].blank) records.pop();
  const checked = records.slice(0, CSV_RECORDS_CHECKED);
  if (checked.length < 2 || checked.some((record) => record.blank)) return false;
  return CSV_DELIMITERS.some((delimiter) => {
    const columns = checked[0].counts[delimiter];
    return columns >= 1 && checked.every((record) => record.counts[delimiter] === columns);
  });
}

interface CsvRecord {
  blank: boolean;
  counts: Record<(typeof CSV_DELIMITERS)[number], number>;
}

/** The records of the text, quote-aware; null when a quote is left open at the end of a complete text. */
function csvRecords(text: string, complete: boolean): CsvRecord[] | null {
  const records: CsvRecord[] = [];
  let record = emptyRecord();
  let inQuotes = false;
  for (const character of text) {
    if (character === '"') {
      inQuotes = !inQuotes; // a doubled quote inside a quoted field toggles twice
      record.blank = false;
    } else if (character === "\n" && !inQuotes) {
      records.push(record);
      record = emptyRecord();
      if (records.length > CSV_RECORDS_CHECKED) return records;
    } else if (!inQuotes && (character === "," || character === ";" || character === "\t")) {
      record.counts[character] += 1;
      record.blank = false;
    } else if (character !== "\r" && character.trim() !== "") {
      record.blank = false;
    }
  }
  if (complete) {
    if (inQuotes) return null;
    records.push(record); // the last line, without a final line break
  }
  // A cut head: the unfinished last record is left out.
  return records;
}

const emptyRecord = (): CsvRecord => ({ blank: true, counts: { ",": 0, ";": 0, "\t": 0 } });

/** Markdown constructs, each a kind of signal. */
const MARKDOWN_SIGNALS: Readonly<Record<string, RegExp>> = {
  heading: /^ {0,3}#{1,6}[ \t]+\S/m,
  list: /^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+\S/m,
  link: /!?\[[^\]\n]+\]\([^)\s]+(?:[ \t]+"[^"\n]*")?\)/,
  fence: /^ {0,3}(?:```|~~~)/m,
  emphasis: /(\*\*|__)\S(?:[^\n]*?\S)?\1/,
  table: /^ {0,3}\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*$/m,
  quote: /^ {0,3}>[ \t]?\S/m,
  code: /`[^`\n]+`/,
};
const ATX_HEADINGS = /^ {0,3}#{1,6}[ \t]+\S/gm;

/** Markdown when the text shows two kinds of Markdown structure, or at least two headings. */
export function looksLikeMarkdown(text: string): boolean {
  const kinds = Object.values(MARKDOWN_SIGNALS).filter((signal) => signal.test(text)).length;
  const headings = text.match(ATX_HEADINGS)?.length ?? 0;
  return kinds >= 2 || headings >= 2;
}
