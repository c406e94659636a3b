import { createHash } from "node:crypto";
import type { AppError } from "@study/platform/errors";
import { generationFingerprint } from "../../src/domain/generation-fingerprint";
import { assertValidGenerationRequest, flashcardCount, type GenerationNote, type GenerationRequest } from "../../src/domain/generation-request";
import { renderStudyGuideMarkdown } from "../../src/domain/study-guide";
import { assertValidQuiz, assertValidStudyGuide, shortfallMessage, type SourceDocument, type SourceNote } from "../../src/domain/study-material";

const note = (noteId: string, transcript: string, userNotes: SourceNote["userNotes"] = []): SourceNote => ({
  noteId,
  title: `Note ${noteId}`,
  transcript,
  segments: [],
  userNotes,
});

describe("the deduplication fingerprint", () => {
  const a = note("a", "Osmosis is the movement of water across a membrane.");
  const b = note("b", "Diffusion spreads particles from high to low concentration.");

  it("is the same for the same notes in any order and ignores titles", () => {
    const renamed = { ...a, title: "Renamed" };
    expect(generationFingerprint("quiz", [a, b])).toBe(generationFingerprint("quiz", [b, renamed]));
  });

  it("changes with the transcript, a text user note, the notes and the kind", () => {
    const base = generationFingerprint("quiz", [a]);
    const variants = [
      generationFingerprint("quiz", [{ ...a, transcript: `${a.transcript} More.` }]),
      generationFingerprint("quiz", [{ ...a, userNotes: [{ timestamp: 3, content: "exam!", contentType: "text" }] }]),
      generationFingerprint("quiz", [a, b]),
      generationFingerprint("flashcards", [a]),
    ];
    expect(new Set([base, ...variants]).size).toBe(5);
  });

  it("ignores url and file user notes (they carry no text to study)", () => {
    const withLink = { ...a, userNotes: [{ timestamp: 1, content: "https://example.org", contentType: "url" }] };
    expect(generationFingerprint("quiz", [withLink])).toBe(generationFingerprint("quiz", [a]));
  });
});

describe("generation requests", () => {
  const request = { userId: "u", courseId: "c", courseName: "Biology", difficulty: "MEDIUM" as const };
  const transcribed = (noteId: string, transcript: string, userNotes: SourceNote["userNotes"] = []): GenerationNote => ({
    ...note(noteId, transcript, userNotes),
    transcriptionStatus: "COMPLETED",
  });

  it("uses only transcribed notes: one still being transcribed or whose transcription failed is 409 NOTE_NOT_TRANSCRIBED", () => {
    for (const transcriptionStatus of ["PENDING", "PROCESSING", "FAILED"] as const) {
      const untranscribed = { ...transcribed("b", ""), transcriptionStatus };
      expect(() => assertValidGenerationRequest({ ...request, notes: [transcribed("a", "Osmosis moves water."), untranscribed] })).toThrow(
        expect.objectContaining({ kind: "conflict", code: "NOTE_NOT_TRANSCRIBED", message: expect.stringContaining('Note "Note b"') }),
      );
    }
    expect(() => assertValidGenerationRequest({ ...request, notes: [{ ...transcribed("a", ""), transcriptionStatus: "FAILED" }] })).toThrow(
      expect.objectContaining({ message: 'Note "Note a" could not be transcribed, so there is nothing to study from' }),
    );
  });

  it("refuses no notes, repeated notes and notes without any text", () => {
    expect(() => assertValidGenerationRequest({ ...request, notes: [] })).toThrow(expect.objectContaining({ code: "VALIDATION_ERROR" }));
    expect(() => assertValidGenerationRequest({ ...request, notes: [transcribed("a", "x"), transcribed("a", "x")] })).toThrow(
      expect.objectContaining({ details: [{ field: "noteIds", message: "must not repeat a note" }] }),
    );
    expect(() => assertValidGenerationRequest({ ...request, notes: [transcribed("a", "  ")] })).toThrow(
      expect.objectContaining({ kind: "precondition", code: "NOT_ENOUGH_CONTENT" }),
    );
  });

  it("accepts a note with only text user notes", () => {
    expect(() =>
      assertValidGenerationRequest({
        ...request,
        notes: [transcribed("a", "", [{ timestamp: 0, content: "Osmosis moves water.", contentType: "text" }])],
      }),
    ).not.toThrow();
  });

  it("defaults the card count to 10 and bounds it to 1-50", () => {
    expect(flashcardCount(undefined)).toBe(10);
    expect(flashcardCount(0)).toBe(10);
    expect(flashcardCount(50)).toBe(50);
    expect(() => flashcardCount(51)).toThrow(
      expect.objectContaining({ details: [{ field: "cardCount", message: "must be an integer from 1 to 50" }] }),
    );
  });
});

describe("generation from documents", () => {
  const request = { userId: "u", courseId: "c", courseName: "Biology", difficulty: "MEDIUM" as const, notes: [] };
  const document = (documentId: string, ...texts: string[]): SourceDocument => ({
    documentId,
    title: `Document ${documentId}`,
    pages: texts.map((text, index) => ({ number: index + 1, text })),
  });
  const chapter = document("d1", "Osmosis is the diffusion of water.", "Diffusion needs no energy.");
  const problems = (invalid: Partial<GenerationRequest>) => {
    try {
      assertValidGenerationRequest({ ...request, documents: [chapter], ...invalid });
    } catch (error) {
      return error as AppError;
    }
    throw new Error("expected the request to be refused");
  };

  it("accepts a document without any note, with up to ten focus areas of 1-100 characters", () => {
    expect(() => assertValidGenerationRequest({ ...request, documents: [chapter] })).not.toThrow();
    const focusAreas = Array.from({ length: 10 }, (_, index) => `${"x".repeat(99)}${index}`);
    expect(() => assertValidGenerationRequest({ ...request, documents: [chapter], focusAreas })).not.toThrow();
  });

  it("refuses no source at all, a repeated document, bad page numbers and bad focus areas", () => {
    expect(problems({ documents: [] })).toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ field: "noteIds", message: "must name at least one note or document" }],
    });
    expect(problems({ documents: [chapter, chapter] }).details).toEqual([{ field: "documents", message: "must not repeat a document" }]);
    expect(problems({ documents: [{ ...chapter, documentId: " " }] }).details).toEqual([{ field: "documents.0.documentId", message: "is required" }]);
    expect(problems({ documents: [{ ...chapter, pages: [{ number: 0, text: "Osmosis." }] }] }).details).toEqual([
      { field: "documents.0.pages", message: "page numbers must be integers from 1" },
    ]);
    expect(problems({ documents: [{ ...chapter, pages: [chapter.pages[0], chapter.pages[0]] }] }).details).toEqual([
      { field: "documents.0.pages", message: "must not repeat a page number" },
    ]);
    expect(problems({ focusAreas: Array.from({ length: 11 }, (_, index) => `topic ${index}`) }).details).toEqual([
      { field: "focusAreas", message: "must name at most 10 topics" },
    ]);
    expect(problems({ focusAreas: ["osmosis", "  ", "y".repeat(101)] }).details).toEqual([
      { field: "focusAreas.1", message: "must be 1 to 100 characters" },
      { field: "focusAreas.2", message: "must be 1 to 100 characters" },
    ]);
  });

  it("refuses a document without text on any page with DOCUMENT_HAS_NO_TEXT (a failed precondition)", () => {
    const scan = { ...document("d2", "", " \n "), title: "Scanned handout" };
    expect(problems({ documents: [chapter, scan] })).toMatchObject({
      kind: "precondition",
      code: "DOCUMENT_HAS_NO_TEXT",
      message: 'Document "Scanned handout" has no extracted text to study from',
    });
    expect(() => assertValidGenerationRequest({ ...request, documents: [document("d3", "", "Osmosis moves water.")] })).not.toThrow();
  });

  it("deduplicates by the documents' ids and page texts and the focus areas, not by titles or page order", () => {
    const key = (documents: SourceDocument[], focusAreas?: string[]) => generationFingerprint("quiz", [], { documents, focusAreas });
    const base = key([chapter]);
    expect(key([{ ...chapter, title: "Renamed", pages: [...chapter.pages].reverse() }])).toBe(base);
    expect(key([chapter], [])).toBe(base);
    expect(key([chapter], ["Osmosis", " diffusion"])).toBe(key([chapter], ["diffusion", "osmosis ", "OSMOSIS"]));
    const variants = [
      key([{ ...chapter, documentId: "d9" }]),
      key([{ ...chapter, pages: [chapter.pages[0], { number: 2, text: "Diffusion needs no ATP." }] }]),
      key([{ ...chapter, pages: [chapter.pages[0]] }]),
      key([chapter], ["osmosis"]),
      key([chapter, document("d2", "Active transport uses ATP.")]),
      generationFingerprint("flashcards", [], { documents: [chapter] }),
    ];
    expect(new Set([base, ...variants]).size).toBe(7);
  });

  it("keeps a notes-only key as it was before documents existed", () => {
    const a = note("a", "Osmosis is the movement of water across a membrane.");
    const before = createHash("sha256")
      .update(JSON.stringify({ kind: "quiz", notes: [{ noteId: "a", transcript: a.transcript, userNotes: [] }] }))
      .digest("hex");
    expect(generationFingerprint("quiz", [a])).toBe(before);
    expect(generationFingerprint("quiz", [a], { documents: [], focusAreas: [] })).toBe(before);
  });
});

describe("generated material rules", () => {
  const valid = {
    title: "Quiz",
    description: "",
    questions: [
      {
        question: "Which organelle makes ATP?",
        type: "multiple_choice" as const,
        options: ["Nucleus", "Mitochondria", "Ribosome", "Vacuole"],
        correctAnswer: "Mitochondria",
        explanation: "It does.",
        source: null,
      },
      {
        question: "Water moves by osmosis.",
        type: "true_false" as const,
        options: ["True", "False"],
        correctAnswer: "True",
        explanation: "Stated.",
        source: null,
      },
    ],
  };

  it("accepts four distinct options and True/False", () => {
    expect(() => assertValidQuiz(valid)).not.toThrow();
  });

  it("refuses three options, a duplicate option, an answer not among the options, and other true/false options", () => {
    const broken = {
      ...valid,
      questions: [
        { ...valid.questions[0], options: ["A", "B", "C"], correctAnswer: "A" },
        { ...valid.questions[0], options: ["A", "a", "B", "C"], correctAnswer: "A" },
        { ...valid.questions[0], correctAnswer: "Golgi" },
        { ...valid.questions[1], options: ["Yes", "No"], correctAnswer: "Yes" },
      ],
    };
    expect(() => assertValidQuiz(broken)).toThrow(
      expect.objectContaining({
        code: "GENERATION_INVALID",
        details: [
          { field: "questions[0].options", message: "a multiple-choice question needs four distinct options" },
          { field: "questions[1].options", message: "a multiple-choice question needs four distinct options" },
          { field: "questions[2].correctAnswer", message: "is not one of the options" },
          { field: "questions[3].options", message: 'a true/false question has the options "True" and "False"' },
        ],
      }),
    );
  });
});

describe("generated study guide rules", () => {
  const guide = {
    title: "Cell transport",
    description: "",
    overview: "How substances cross membranes.",
    keyTerms: ["osmosis"],
    learningObjectives: [],
    studyTips: [],
    sections: [
      {
        title: "Passive transport",
        content: "Diffusion needs no energy.",
        subsections: [{ title: "Osmosis", content: "Water moves." }],
        source: null,
      },
    ],
  };

  it("accepts a guide whose sections and subsections all have a title and text", () => {
    expect(() => assertValidStudyGuide(guide)).not.toThrow();
  });

  it("refuses an empty subsection title or text (it would be an empty heading in the markdown)", () => {
    const broken = {
      ...guide,
      sections: [
        {
          ...guide.sections[0],
          subsections: [
            { title: " ", content: "Water moves." },
            { title: "Osmosis", content: "" },
          ],
        },
      ],
    };
    expect(() => assertValidStudyGuide(broken)).toThrow(
      expect.objectContaining({
        code: "GENERATION_INVALID",
        details: [
          { field: "sections[0].subsections[0].title", message: "is empty" },
          { field: "sections[0].subsections[1].content", message: "is empty" },
        ],
      }),
    );
  });
});

describe("a study guide's markdown (shape A)", () => {
  it("renders the structured parts in reading order", () => {
    const markdown = renderStudyGuideMarkdown({
      title: "Cell transport",
      description: "From the lecture of week 3",
      overview: "How substances cross membranes.",
      keyTerms: ["osmosis", "diffusion"],
      learningObjectives: ["Define osmosis"],
      studyTips: ["Draw the membrane"],
      sections: [
        { title: "Passive transport", content: "- Diffusion needs no energy.", subsections: [{ title: "Osmosis", content: "Water moves." }] },
      ],
    });
    expect(markdown).toBe(
      [
        "# Cell transport",
        "_From the lecture of week 3_",
        "## Overview\n\nHow substances cross membranes.",
        "## Key terms\n\n- osmosis\n- diffusion",
        "## Learning objectives\n\n- Define osmosis",
        "## Passive transport\n\n- Diffusion needs no energy.",
        "### Osmosis\n\nWater moves.",
        "## Study tips\n\n- Draw the membrane",
      ].join("\n\n") + "\n",
    );
  });
});

describe("a set shorter than asked for", () => {
  it("says how many of how many, and why; nothing when the count is met", () => {
    expect(shortfallMessage(9, 12, "questions", "the notes state 9 distinct facts")).toBe(
      "9 of the 12 questions asked for: the notes state 9 distinct facts",
    );
    expect(shortfallMessage(3, 10, "cards", undefined)).toBe(
      "3 of the 10 cards asked for: the generator found no more to ask about in these sources",
    );
    expect(shortfallMessage(10, 10, "cards", "unused")).toBeNull();
  });
});
