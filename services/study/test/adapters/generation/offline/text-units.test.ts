import { buildTextUnits } from "../../../../src/adapters/generation/offline/text-units";
import type { SourceNote } from "../../../../src/domain/study-material";
import { asPocketsphinx, lectureNote } from "./fixtures/notes";

const note = (overrides: Partial<SourceNote>): SourceNote => ({ noteId: "n1", title: "T", transcript: "", segments: [], userNotes: [], ...overrides });

describe("buildTextUnits", () => {
  it("splits a punctuated transcript into sentences, each at the start of the segment it begins in", () => {
    const units = buildTextUnits([
      note({
        transcript: "So, um, glycolysis splits glucose. It happens in the cytoplasm. The Krebs cycle runs in the matrix of the mitochondrion.",
        segments: [
          { text: "So, um, glycolysis splits glucose. It happens", startTime: 1.5, endTime: 4 },
          { text: "in the cytoplasm. The Krebs cycle runs", startTime: 4.2, endTime: 7 },
          { text: "in the matrix of the mitochondrion.", startTime: 7.1, endTime: 9 },
        ],
      }),
    ]);
    expect(units.map((unit) => [unit.text, unit.statement, unit.startTime])).toEqual([
      ["So, glycolysis splits glucose.", "Glycolysis splits glucose.", 1.5],
      ["It happens in the cytoplasm.", "It happens in the cytoplasm.", 1.5],
      ["The Krebs cycle runs in the matrix of the mitochondrion.", "The Krebs cycle runs in the matrix of the mitochondrion.", 4.2],
    ]);
    expect(units.map((unit) => unit.position)).toEqual([0, 0.5, 1]);
  });

  it("matches segments to the transcript whatever their case and punctuation", () => {
    const [unit] = buildTextUnits([
      note({
        transcript: "Enzymes are proteins that speed up reactions.",
        segments: [
          { text: "ENZYMES ARE PROTEINS", startTime: 12, endTime: 13 },
          { text: "that speed up reactions", startTime: 13, endTime: 14 },
        ],
      }),
    ]);
    expect(unit.startTime).toBe(12);
  });

  it("has no start time when the transcript has no timing", () => {
    const units = buildTextUnits([note({ transcript: "Enzymes are proteins. They speed up reactions." })]);
    expect(units.map((unit) => unit.startTime)).toEqual([null, null]);
  });

  it("builds sentence-sized units of whole pocketsphinx phrases from an unpunctuated transcript", () => {
    const spoken = asPocketsphinx(lectureNote());
    const units = buildTextUnits([spoken]);
    const words = (text: string) => (text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).filter((word) => !/^(?:um+|uh+)$/.test(word));
    // Nothing is lost or reordered.
    expect(units.flatMap((unit) => words(unit.text))).toEqual(words(spoken.transcript));
    const phraseStarts = new Set(spoken.segments.map((segment) => segment.startTime));
    for (const unit of units) {
      expect(words(unit.text).length).toBeLessThanOrEqual(40);
      expect(phraseStarts.has(unit.startTime ?? -1)).toBe(true);
    }
    const short = units.filter((unit) => words(unit.text).length < 10);
    expect(short.length).toBeLessThan(units.length / 10);
  });

  it("starts a unit's time at its first word past a filler said in a phrase of its own", () => {
    const segments = [
      { text: "so", startTime: 3, endTime: 3.2 },
      { text: "how much atp does the cell get in the end", startTime: 4, endTime: 7 },
      { text: "each nadh gives roughly two and a half atp", startTime: 8, endTime: 11 },
      { text: "and each fadh2 gives one and a half", startTime: 12, endTime: 14 },
      { text: "if you add everything up one glucose molecule yields about thirty atp through aerobic respiration", startTime: 15, endTime: 19 },
    ];
    const units = buildTextUnits([note({ transcript: segments.map((segment) => segment.text).join(" "), segments })]);
    expect(units[0].statement).toBe("How much atp does the cell get in the end");
    expect(units[0].startTime).toBe(4);
  });

  it("adds the user's text notes where their timestamps fall, and leaves links and files out", () => {
    const units = buildTextUnits([
      note({
        transcript: "Glycolysis splits glucose. The Krebs cycle runs in the matrix.",
        segments: [
          { text: "Glycolysis splits glucose.", startTime: 0, endTime: 3 },
          { text: "The Krebs cycle runs in the matrix.", startTime: 60, endTime: 63 },
        ],
        userNotes: [
          { timestamp: 30, content: "Net gain of glycolysis: two ATP per glucose.", contentType: "text" },
          { timestamp: 31, content: "https://example.org/krebs", contentType: "url" },
        ],
      }),
    ]);
    expect(units.map((unit) => [unit.text, unit.startTime])).toEqual([
      ["Glycolysis splits glucose.", 0],
      ["Net gain of glycolysis: two ATP per glucose.", 30],
      ["The Krebs cycle runs in the matrix.", 60],
    ]);
  });

  it("numbers units across notes and keeps each note's id", () => {
    const units = buildTextUnits([note({ noteId: "a", transcript: "First note here." }), note({ noteId: "b", transcript: "Second note. Two sentences." })]);
    expect(units.map((unit) => [unit.id, unit.noteId, unit.noteIndex])).toEqual([
      [0, "a", 0],
      [1, "b", 1],
      [2, "b", 1],
    ]);
  });
});
