import { evenlySpacedWithin, renderSourceText, SourceIndex } from "../../../../src/adapters/generation/openai/source-text";
import type { SourceNote } from "../../../../src/domain/study-material";

const note = (noteId: string, overrides: Partial<SourceNote> = {}): SourceNote => ({
  noteId,
  title: `Note ${noteId}`,
  transcript: "",
  segments: [],
  userNotes: [],
  ...overrides,
});

describe("evenlySpacedWithin", () => {
  it("keeps everything that fits", () => {
    expect(evenlySpacedWithin([10, 20, 30], 60)).toEqual([0, 1, 2]);
  });

  it("keeps evenly spaced items within the budget", () => {
    expect(evenlySpacedWithin(Array(10).fill(10), 50)).toEqual([0, 2, 4, 6, 8]);
    const picked = evenlySpacedWithin([5, 100, 5, 100, 5, 100, 5, 100], 120);
    expect(picked.reduce((sum, index) => sum + [5, 100][index % 2], 0)).toBeLessThanOrEqual(120);
    expect(picked.length).toBeGreaterThan(0);
  });

  it("keeps nothing when no item fits", () => {
    expect(evenlySpacedWithin([500], 100)).toEqual([]);
  });
});

describe("renderSourceText", () => {
  it("cuts an untimed transcript into passages between sentences", () => {
    const sentence = "Mitochondria produce most of the cell's energy in the form of ATP.";
    const { text, excerpted } = renderSourceText([note("n1", { transcript: Array(20).fill(sentence).join(" ") })], 100_000);
    const passages = text.split("\n").slice(1);
    expect(excerpted).toBe(false);
    expect(passages.length).toBeGreaterThan(1);
    for (const passage of passages) {
      expect(passage).toMatch(/^\[note n1\] Mitochondria .*ATP\.$/);
      expect(passage.length).toBeLessThanOrEqual("[note n1] ".length + 600);
    }
  });

  it("keeps every note's header when only passages fit partly", () => {
    const segments = Array.from({ length: 50 }, (_, index) => ({ text: `Point ${index}.`, startTime: index, endTime: index + 1 }));
    const { text, excerpted } = renderSourceText([note("n1", { segments }), note("n2", { segments })], 600);
    expect(excerpted).toBe(true);
    expect(text.length).toBeLessThanOrEqual(600);
    expect(text).toContain("Note n1: Note n1");
    expect(text).toContain("Note n2: Note n2");
    expect(text).toContain("[note n2, t=");
  });
});

describe("SourceIndex", () => {
  const sources = new SourceIndex([
    note("n1", {
      segments: [
        { text: "a", startTime: 2.5, endTime: 10 },
        { text: "b", startTime: 10, endTime: 20.04 },
        { text: "c", startTime: 20.04, endTime: 30 },
      ],
    }),
    note("n2"),
  ]);

  it.each([
    [2.5, 2.5],
    [15, 10],
    [20, 20.04], // shown as t=20.0 in the prompt
    [999, 20.04],
    [0, 2.5], // before the first segment
  ])("snaps t=%p to the start of the segment it falls in (%p)", (cited, expected) => {
    expect(sources.resolve("n1", cited)).toEqual({ noteId: "n1", startTime: expected });
  });

  it("keeps the note without a time when none is cited or the note has no timing", () => {
    expect(sources.resolve("n1", null)).toEqual({ noteId: "n1", startTime: null });
    expect(sources.resolve("n2", 12)).toEqual({ noteId: "n2", startTime: null });
    expect(sources.resolve(" note n2 ", null)).toEqual({ noteId: "n2", startTime: null });
  });

  it("falls back to the first note without a time for an unknown or missing note id whose text matches nothing", () => {
    expect(sources.resolve("n3", 1)).toEqual({ noteId: "n1", startTime: null });
    expect(sources.resolve(null, 1, "nothing alike")).toEqual({ noteId: "n1", startTime: null });
    expect(new SourceIndex([]).resolve("n1", 1)).toBeNull();
  });

  describe("when the model cites no time or an unknown note, matches the item's words against the passages", () => {
    const lecture = new SourceIndex([
      note("lecture", {
        segments: [
          { text: "Glycolysis splits glucose into two pyruvate molecules.", startTime: 0, endTime: 8 },
          { text: "The Krebs cycle runs in the mitochondrial matrix.", startTime: 8, endTime: 15.5 },
          { text: "The electron transport chain makes most of the ATP.", startTime: 15.5, endTime: 24 },
        ],
        userNotes: [
          { timestamp: 17, content: "Oxygen is the final electron acceptor.", contentType: "text" },
          { timestamp: 2, content: "https://example.com/glycolysis-pyruvate-diagram", contentType: "url" },
        ],
      }),
      note("reading", { transcript: "Fermentation regenerates NAD+ without oxygen." }),
    ]);

    it("takes the segment sharing the most words", () => {
      expect(lecture.resolve("lecture", null, "Where does the Krebs cycle run? In the mitochondrial matrix.")).toEqual({
        noteId: "lecture",
        startTime: 8,
      });
      expect(lecture.resolve("no-such-note", 3, "What does glycolysis make from glucose? Pyruvate.")).toEqual({ noteId: "lecture", startTime: 0 });
      expect(lecture.resolve(null, null, "Which chain makes most of the ATP?")).toEqual({ noteId: "lecture", startTime: 15.5 });
    });

    it("matches text user notes (at the segment playing at their time), not URL ones", () => {
      expect(lecture.resolve(null, null, "What is the final electron acceptor? Oxygen.")).toEqual({ noteId: "lecture", startTime: 15.5 });
      expect(lecture.resolve(null, null, "example diagram")).toEqual({ noteId: "lecture", startTime: null });
    });

    it("keeps a typed user note's time in a note without segments, cited or matched (#29)", () => {
      const typed = new SourceIndex([
        note("typed", {
          userNotes: [
            { timestamp: 42, content: "Elinor Dashwood hides her feelings for Edward Ferrars.", contentType: "text" },
            { timestamp: 300, content: "Marianne falls ill at Cleveland.", contentType: "text" },
            { timestamp: 5, content: "https://example.com/cleveland-estate-map", contentType: "url" },
          ],
        }),
      ]);
      expect(typed.resolve("typed", null, "Whose feelings for Edward Ferrars does Elinor hide?")).toEqual({ noteId: "typed", startTime: 42 });
      expect(typed.resolve("typed", 300, "Where does Marianne fall ill?")).toEqual({ noteId: "typed", startTime: 300 });
      expect(typed.resolve("typed", 310.4)).toEqual({ noteId: "typed", startTime: 300 });
    });

    it("keeps a cited note and looks only within it", () => {
      expect(lecture.resolve("reading", null, "Glycolysis splits glucose")).toEqual({ noteId: "reading", startTime: null });
    });
  });
});
