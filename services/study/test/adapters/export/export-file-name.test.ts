import { exportFileName } from "../../../src/adapters/export/export-file-name";

describe("export file names", () => {
  it("slugs the title: lowercase ASCII, accents dropped, any other run of characters one dash", () => {
    expect(exportFileName("  Économie: l'offre & la demande (2026)!  ", "csv")).toBe("economie-l-offre-la-demande-2026.csv");
    expect(exportFileName("../../etc/passwd", "apkg")).toBe("etc-passwd.apkg");
  });

  it("caps the slug at 80 characters, without a trailing dash", () => {
    const name = exportFileName(`${"a".repeat(79)} b`, "csv");
    expect(name).toBe(`${"a".repeat(79)}.csv`);
  });

  it("falls back to 'flashcards' when no letter or digit is left", () => {
    expect(exportFileName("日本語 — ✓", "apkg")).toBe("flashcards.apkg");
    expect(exportFileName("", "csv")).toBe("flashcards.csv");
  });
});
