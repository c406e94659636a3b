/** A spreadsheet row as a readable line: its cells trimmed and joined by " | ", trailing empty cells dropped; "" for an empty row. */
export function rowLine(cells: readonly string[]): string {
  const trimmed = cells.map((cell) => cell.replace(/\s+/g, " ").trim());
  while (trimmed.length && !trimmed[trimmed.length - 1]) trimmed.pop();
  return trimmed.some(Boolean) ? trimmed.join(" | ") : "";
}
