import { createHash } from "node:crypto";

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const HTML_UNESCAPES: Record<string, string> = Object.fromEntries(Object.entries(HTML_ESCAPES).map(([char, entity]) => [entity, char]));

/** Anki's alphabet for guids (a 64-bit number written in base 91). */
const BASE91_DIGITS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&()*+,-./:;<=>?@[]^_`{|}~";

/**
 * A card's text as an Anki field, which Anki renders as HTML: markup characters escaped, line breaks as <br>,
 * and control characters dropped (\x1f separates the fields of a note).
 */
export function ankiFieldHtml(text: string): string {
  return (
    text
      .replace(/\r\n?/g, "\n")
      // eslint-disable-next-line no-control-regex -- control characters (but tab and newline) are exactly what is removed
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "")
      .replace(/[&<>"']/g, (char) => HTML_ESCAPES[char])
      .replace(/\n/g, "<br>")
  );
}

/**
 * What Anki's strip_html makes of a field written by ankiFieldHtml (tags dropped, entities decoded): the text
 * of notes.sfld and of the checksum.
 */
export function ankiPlainText(fieldHtml: string): string {
  return fieldHtml.replace(/<[^>]*>/g, "").replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => HTML_UNESCAPES[entity]);
}

/** notes.csum, Anki's duplicate check: the first 8 hex digits of the SHA-1 of the first field's plain text. */
export function ankiFieldChecksum(plainText: string): number {
  return Number.parseInt(createHash("sha1").update(plainText, "utf8").digest("hex").slice(0, 8), 16);
}

/**
 * The guid of a card's note, derived from the card id: Anki matches notes by guid on import, so importing a
 * later export of the same set updates the notes instead of adding copies.
 */
export function ankiNoteGuid(cardId: string): string {
  let value = createHash("sha256").update(cardId, "utf8").digest().readBigUInt64BE(0);
  let guid = "";
  do {
    guid = BASE91_DIGITS[Number(value % 91n)] + guid;
    value /= 91n;
  } while (value > 0n);
  return guid;
}
