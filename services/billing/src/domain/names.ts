/**
 * Other users' names are shown shortened (privacy): the first name and the initial of the last ("Ada L."), or the
 * first name alone; an empty name reads "A student". Initials are at most two letters ("AL").
 */
export function shortName(fullName: string): string {
  const parts = words(fullName);
  if (parts.length === 0) return "A student";
  if (parts.length === 1) return parts[0];
  return `${parts[0]} ${firstLetter(parts[parts.length - 1])}.`;
}

export function initials(fullName: string): string {
  const parts = words(fullName);
  if (parts.length === 0) return "?";
  const letters = parts.length === 1 ? [firstLetter(parts[0])] : [firstLetter(parts[0]), firstLetter(parts[parts.length - 1])];
  return letters.join("").toUpperCase();
}

const words = (name: string) =>
  name
    .trim()
    .split(/\s+/u)
    .filter((part) => part.length > 0);
// The first user-perceived letter (an accented or astral letter stays whole).
const firstLetter = (word: string) => Array.from(word)[0] ?? "";
