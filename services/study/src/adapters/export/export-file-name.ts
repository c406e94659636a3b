const MAX_SLUG_LENGTH = 80;

/**
 * `<slug of the title>.<extension>`: lowercase ASCII letters, digits and dashes only (accents dropped), so the
 * name is safe in any file system and in a Content-Disposition header; "flashcards" when nothing is left.
 */
export function exportFileName(title: string, extension: string): string {
  const slug = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/^-+|-+$/g, "");
  return `${slug || "flashcards"}.${extension}`;
}
