import { analyseNotes } from "../../../../src/adapters/generation/offline/analysis";
import { OfflineStudyMaterialGenerator } from "../../../../src/adapters/generation/offline/offline-study-material-generator";
import { buildTextUnits } from "../../../../src/adapters/generation/offline/text-units";
import type { GenerationInput } from "../../../../src/application/ports/study-material-generator.port";
import type { SourceDocument, SourceReference } from "../../../../src/domain/study-material";
import { chapterDocument } from "./fixtures/documents";
import { lectureNote } from "./fixtures/notes";
import { comparable } from "./helpers";

const generator = new OfflineStudyMaterialGenerator();
const chapter = chapterDocument();

const fromDocument = (focusAreas: string[] = [], document: SourceDocument = chapter): GenerationInput => ({
  courseName: "BIO 101",
  notes: [],
  documents: [document],
  focusAreas,
  difficulty: "MEDIUM",
});

/** The page a source reference points at, checked to be a page of the chapter. */
function pageOf(source: SourceReference | null): { number: number; text: string } {
  expect(source).toMatchObject({ documentId: chapter.documentId, page: expect.any(Number) });
  expect(source?.noteId).toBeUndefined();
  const page = chapter.pages.find((candidate) => candidate.number === source?.page);
  expect(page).toBeDefined();
  return page as { number: number; text: string };
}

/** Whether the page says `text` (line breaks, case and punctuation aside). */
const pageSays = (page: { text: string }, text: string) => comparable(page.text).includes(comparable(text));

const mentions = (text: string, word: string) => text.toLowerCase().includes(word);

describe("generation from a document", () => {
  it("reads wrapped page text as whole sentences, headings apart, hyphenation undone, each unit on its page", () => {
    const units = buildTextUnits(
      [],
      [
        chapter,
        {
          documentId: "scan",
          title: "Scan",
          pages: [{ number: 7, text: "Key facts\nPhoto-\nsynthesis takes place in the chloroplasts of a leaf\ncell." }],
        },
      ],
    );
    expect(units.find((unit) => unit.text.startsWith("Diffusion is the movement"))).toMatchObject({
      text: "Diffusion is the movement of particles from an area of high concentration to an area of low concentration.",
      sourceId: chapter.documentId,
      sourceIndex: 0,
      page: 1,
      startTime: null,
    });
    expect(units.find((unit) => unit.text === "Chapter 4 Membrane transport")).toMatchObject({ page: 1 });
    expect(units.find((unit) => unit.text.startsWith("Rubisco"))).toMatchObject({ page: 2 });
    expect(units.filter((unit) => unit.sourceId === "scan").map((unit) => [unit.text, unit.page, unit.sourceIndex])).toEqual([
      ["Key facts", 7, 1],
      ["Photosynthesis takes place in the chloroplasts of a leaf cell.", 7, 1],
    ]);
  });

  it("links every card, question and section to the page its text came from", async () => {
    const set = await generator.generateFlashcards({ ...fromDocument(), cardCount: 12 });
    expect(set.title).toBe("Biology textbook, chapter 4 — Flashcards");
    expect(set.cards).toHaveLength(12);
    for (const card of set.cards) {
      const page = pageOf(card.source);
      // Cloze and context cards quote their sentence: it is on the linked page.
      const quoted = card.back.includes(" — ") ? card.back.split(" — ").slice(1).join(" — ") : null;
      if (quoted) expect(pageSays(page, quoted)).toBe(true);
    }
    expect(new Set(set.cards.map((card) => card.source?.page))).toEqual(new Set([1, 2, 3]));

    const quiz = await generator.generateQuiz({ ...fromDocument(), questionCount: 9 });
    expect(quiz.questions).toHaveLength(9);
    for (const question of quiz.questions) {
      const page = pageOf(question.source);
      const quoted = /"([^"]+)"$/.exec(question.explanation)?.[1];
      expect(quoted).toBeDefined();
      expect(pageSays(page, quoted ?? "")).toBe(true);
    }

    const guide = await generator.generateStudyGuide(fromDocument());
    expect(guide.sections.length).toBeGreaterThan(1);
    const pages = guide.sections.map((section) => pageOf(section.source).number);
    expect(pages).toEqual([...pages].sort((a, b) => a - b));
    expect(pages[0]).toBe(1);
    for (const section of guide.sections) {
      // A section links to the page where it starts: its bullets are on that page or the ones after it.
      const start = pageOf(section.source).number;
      for (const bullet of section.content.split("\n").map((line) => line.replace(/^- /, "").replace(/\*\*/g, ""))) {
        const on = chapter.pages.find((page) => pageSays(page, bullet));
        expect(on?.number).toBeGreaterThanOrEqual(start);
      }
    }
    expect(guide.studyTips).toContain('Reread page 1 of "Biology textbook, chapter 4", where cell first comes up.');
  });

  it("puts what the focus areas are about first, and chooses more of it", async () => {
    const plain = await generator.generateFlashcards({ ...fromDocument(), cardCount: 6 });
    const focused = await generator.generateFlashcards({ ...fromDocument(["osmosis", "Calvin cycle"]), cardCount: 6 });
    const onFocus = (text: string) => mentions(text, "osmosis") || mentions(text, "calvin cycle");
    const cardText = (card: { front: string; back: string }) => `${card.front} ${card.back}`;
    // Every card on a focus area comes before any other.
    const flags = focused.cards.map((card) => onFocus(cardText(card)));
    expect(flags[0]).toBe(true);
    expect(flags).toEqual([...flags].sort((a, b) => Number(b) - Number(a)));
    expect(flags.filter(Boolean).length).toBeGreaterThan(plain.cards.filter((card) => onFocus(cardText(card))).length);

    const quiz = await generator.generateQuiz({ ...fromDocument(["osmosis"]), questionCount: 5 });
    const questionFlags = quiz.questions.map((question) => mentions(`${question.question} ${question.explanation}`, "osmosis"));
    expect(questionFlags[0]).toBe(true);
    expect(questionFlags).toEqual([...questionFlags].sort((a, b) => Number(b) - Number(a)));

    // The section on fermentation (the chapter's last page) comes first.
    const plainGuide = await generator.generateStudyGuide(fromDocument());
    const guide = await generator.generateStudyGuide(fromDocument(["fermentation"]));
    expect(mentions(plainGuide.sections[0].content, "fermentation")).toBe(false);
    expect(mentions(guide.sections[0].content, "fermentation")).toBe(true);
    expect(new Set(guide.sections.map((section) => section.title))).toEqual(new Set(plainGuide.sections.map((section) => section.title)));
  });

  it("marks the units on a focus area by their words, plurals folded and in any order", async () => {
    const text = await analyseNotes([], undefined, { documents: [chapter], focusAreas: ["  Krebs cycles ", "the"] });
    const focused = text.units.filter((unit) => text.focus[unit.id]).map((unit) => unit.text);
    // "the" (stop words only) is looked for as written: every sentence with "the" is marked too.
    expect(focused).toContain("The Krebs cycle is a series of reactions in the mitochondrial matrix that releases carbon dioxide.");
    const none = await analyseNotes([], undefined, { documents: [chapter] });
    expect(none.focus.every((marked) => !marked)).toBe(true);
    const krebsOnly = await analyseNotes([], undefined, { documents: [chapter], focusAreas: ["krebs CYCLES"] });
    expect(krebsOnly.units.filter((unit) => krebsOnly.focus[unit.id]).map((unit) => unit.text)).toEqual([
      "The Krebs cycle is a series of reactions in the mitochondrial matrix that releases carbon dioxide.",
      "Mitochondria are the organelles where the Krebs cycle and the electron transport chain take place, which is why active muscle cells hold many of them.",
    ]);
  });

  it("studies from notes and a document together, linking each item to its own kind of source", async () => {
    const lecture = lectureNote();
    const set = await generator.generateFlashcards({ ...fromDocument(), notes: [lecture], cardCount: 30 });
    expect(set.title).toBe("BIO 101 — Flashcards");
    const kinds = new Set(set.cards.map((card) => (card.source?.documentId === chapter.documentId ? "document" : card.source?.noteId)));
    expect(kinds).toEqual(new Set(["document", lecture.noteId]));
    for (const card of set.cards) {
      if (card.source?.noteId !== undefined) expect(card.source).toEqual({ noteId: lecture.noteId, startTime: expect.any(Number) });
      else pageOf(card.source);
    }
  });

  it("is deterministic", async () => {
    const input = { ...fromDocument(["photosynthesis"]), questionCount: 8 };
    expect(await new OfflineStudyMaterialGenerator().generateQuiz(input)).toEqual(await new OfflineStudyMaterialGenerator().generateQuiz(input));
  });
});
