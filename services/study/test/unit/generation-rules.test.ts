import { generationFingerprint } from "../../src/domain/generation-fingerprint";
import { assertValidGenerationRequest, flashcardCount, type GenerationNote } from "../../src/domain/generation-request";
import { renderStudyGuideMarkdown } from "../../src/domain/study-guide";
import { assertValidQuiz, assertValidStudyGuide, type SourceNote } from "../../src/domain/study-material";

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
