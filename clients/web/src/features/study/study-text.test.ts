import { describe, expect, it } from "vitest";
import { downloadName } from "./export-button";
import { withoutTitle } from "./guide-page";
import { notePathAt, sourceText } from "./source-link";

describe("source links", () => {
  it("name the second and the note, and lead to the note playing from that second", () => {
    expect(sourceText({ noteId: "n1", startTime: 724.6 }, "Lecture 3")).toBe("from 12:04 in Lecture 3");
    expect(notePathAt("n1", 724.6)).toBe("/notes/n1?t=724");
    expect(sourceText({ noteId: "n1", startTime: null }, "Lecture 3")).toBe("from Lecture 3");
    expect(notePathAt("n1", null)).toBe("/notes/n1");
    expect(sourceText({ noteId: "n1", startTime: 3729 }, undefined)).toBe("from 1:02:09 in your note");
    expect(sourceText({ documentId: "d1", page: 3 }, undefined)).toBe("from page 3 of a course document");
  });
});

describe("export file names", () => {
  it("take the API's Content-Disposition, else the set's title", () => {
    expect(downloadName(`attachment; filename="gram.apkg"; filename*=UTF-8''Gram%20staining.apkg`, "x", "apkg")).toBe("Gram staining.apkg");
    expect(downloadName(`attachment; filename="gram.csv"`, "x", "csv")).toBe("gram.csv");
    expect(downloadName(null, "Lecture 3: Gram staining — Flashcards", "csv")).toBe("Lecture-3-Gram-staining-Flashcards.csv");
  });
});

describe("a study guide's Markdown", () => {
  it("loses its leading title, which the page's heading shows", () => {
    expect(withoutTitle("# Gram staining\n\n## Overview\n\nText\n", "Gram staining")).toBe("## Overview\n\nText");
    expect(withoutTitle("## Overview\n\nText", "Gram staining")).toBe("## Overview\n\nText");
  });
});
