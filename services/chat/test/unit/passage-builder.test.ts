import { documentPassages, notePassages } from "../../src/domain/passage-builder";

describe("passages of a note and a document", () => {
  it("keeps segments with their start times, joins short ones, adds the summary and user notes", () => {
    const drafts = notePassages({
      noteId: "n1",
      title: "Lecture 1",
      segments: [
        { start: 14.2, text: "Okay, good morning." },
        { start: 16, text: "Today is all about the bacterial cell, what it is built from and why that matters for antibiotics." },
        { start: 30, text: "  " },
        { start: 33, text: "The Gram stain was introduced by Hans Christian Gram in 1884 in Berlin." },
      ],
      summary: "The bacterial cell and the Gram stain.",
      userNotes: [
        { content: "Gram stain order: crystal violet, iodine, alcohol, safranin.", timestamp: 41.5 },
        { content: " ", timestamp: 50 },
      ],
    });
    expect(drafts.map(({ kind, startTime, position }) => ({ kind, startTime, position }))).toEqual([
      { kind: "segment", startTime: 14.2, position: 0 },
      { kind: "segment", startTime: 33, position: 1 },
      { kind: "summary", startTime: null, position: 2 },
      { kind: "user_note", startTime: 41.5, position: 3 },
    ]);
    expect(drafts[0].text).toBe(
      "Okay, good morning. Today is all about the bacterial cell, what it is built from and why that matters for antibiotics.",
    );
  });

  it("gives a typed user note its own timestamp as start time, also in a note without transcript segments (#29)", () => {
    const drafts = notePassages({
      noteId: "n4",
      title: "Typed notes",
      segments: [],
      summary: null,
      userNotes: [
        { content: "The lag phase comes before exponential growth.", timestamp: 0 },
        { content: "Stationary phase: nutrients run out.", timestamp: 754 },
      ],
    });
    expect(drafts.map(({ kind, startTime, text }) => ({ kind, startTime, text }))).toEqual([
      { kind: "user_note", startTime: 0, text: "The lag phase comes before exponential growth." },
      { kind: "user_note", startTime: 754, text: "Stationary phase: nutrients run out." },
    ]);
  });

  it("cuts a note's transcript like a page when it has no segments, without a start time", () => {
    const sentence = (n: number) => `Sentence number ${n} has exactly eight words here.`;
    const drafts = notePassages({
      noteId: "n2",
      title: "Pasted lecture",
      segments: [],
      summary: null,
      userNotes: [],
      content: Array.from({ length: 20 }, (_, i) => sentence(i)).join("\n"),
    });
    expect(drafts.map(({ kind, startTime, page, position }) => ({ kind, startTime, page, position }))).toEqual([
      { kind: "segment", startTime: null, page: null, position: 0 },
      { kind: "segment", startTime: null, page: null, position: 1 },
    ]);
    expect(drafts[0].text.startsWith(`${sentence(0)} ${sentence(1)}`)).toBe(true);
    expect(drafts.every((d) => d.text.endsWith("."))).toBe(true);
    const timed = notePassages({
      noteId: "n3",
      title: "Timed",
      segments: [{ start: 2, text: "Timed words." }],
      summary: null,
      userNotes: [],
      content: "Timed words.",
    });
    expect(timed.map((d) => d.startTime)).toEqual([2]);
  });

  it("cuts pages into passages at sentence ends, each with its page", () => {
    const sentence = (n: number) => `Sentence number ${n} has exactly eight words here.`;
    const page = Array.from({ length: 40 }, (_, i) => sentence(i)).join(" ");
    const drafts = documentPassages({
      documentId: "d1",
      title: "Textbook",
      pages: [
        { number: 3, text: page },
        { number: 4, text: "Short page." },
      ],
    });
    expect(drafts.filter((d) => d.page === 3).length).toBe(3);
    expect(drafts.every((d) => d.text.endsWith("."))).toBe(true);
    expect(drafts.at(-1)).toMatchObject({ page: 4, text: "Short page.", kind: "page", sourceType: "document" });
    expect(drafts.map((d) => d.position)).toEqual(drafts.map((_, i) => i));
  });
});
