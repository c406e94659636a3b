import { buildTextUnits } from "../../../../src/adapters/generation/offline/text-units";
import type { SourceNote } from "../../../../src/domain/study-material";
import { asPocketsphinx, lectureNote, librivoxMediaNote, mediaLectureNote } from "./fixtures/notes";

const note = (overrides: Partial<SourceNote>): SourceNote => ({
  noteId: "n1",
  title: "T",
  transcript: "",
  segments: [],
  userNotes: [],
  ...overrides,
});

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

  describe("a transcript punctuated at pauses (media's pocketsphinx adapter: a full stop at every pause)", () => {
    it("joins pause-cut fragments to their clause and keeps the first piece's start", () => {
      const segments = [
        { text: "Glycolysis happens in the cytoplasm.", startTime: 0, endTime: 2 },
        { text: "The krebs cycle.", startTime: 3, endTime: 4 },
        { text: "Takes place.", startTime: 5, endTime: 5.6 },
        { text: "In the mitochondrial matrix.", startTime: 6.5, endTime: 8 },
        { text: "It releases two carbon dioxide molecules for every turn.", startTime: 9, endTime: 11 },
        { text: "Pyruvate is a three carbon molecule.", startTime: 12, endTime: 14 },
        { text: "Cellular respiration is the process by which.", startTime: 15, endTime: 17 },
        { text: "Cells break down glucose and use the energy stored.", startTime: 18, endTime: 20 },
        { text: "In its bonds to.", startTime: 21, endTime: 22 },
        { text: "Make atp.", startTime: 23, endTime: 24 },
        { text: "Okay.", startTime: 25, endTime: 25.4 },
        { text: "So each nadh gives roughly two and a half atp.", startTime: 26, endTime: 28 },
        { text: "One more nadh for each pyruvate.", startTime: 29, endTime: 31 },
      ];
      const units = buildTextUnits([note({ transcript: segments.map((segment) => segment.text).join(" "), segments })]);
      expect(units.map((unit) => [unit.statement, unit.startTime])).toEqual([
        ["Glycolysis happens in the cytoplasm.", 0],
        // A verbless subject waits for its verb; a short piece opening with a verb or preposition ends the clause.
        ["The krebs cycle takes place in the mitochondrial matrix.", 3],
        ["It releases two carbon dioxide molecules for every turn.", 9],
        // A short clause of its own stays apart.
        ["Pyruvate is a three carbon molecule.", 12],
        ["Cellular respiration is the process by which cells break down glucose and use the energy stored in its bonds to make atp.", 15],
        ["Each nadh gives roughly two and a half atp one more nadh for each pyruvate.", 26],
      ]);
    });

    it("leaves a transcript with commas (a transcriber that punctuates) as sentences", () => {
      const transcript = "Let's start with glycolysis. Glycolysis splits glucose, and it makes two ATP. It happens in the cytoplasm.";
      const segments = [
        { text: "Let's start with glycolysis.", startTime: 0, endTime: 2 },
        { text: "Glycolysis splits glucose, and it makes two ATP.", startTime: 2.5, endTime: 5 },
        { text: "It happens in the cytoplasm.", startTime: 5.5, endTime: 7 },
      ];
      expect(buildTextUnits([note({ transcript, segments })]).map((unit) => unit.text)).toEqual(segments.map((segment) => segment.text));
    });

    it("rejoins most fragments of the media-style lecture, losing and reordering no word", () => {
      const spoken = mediaLectureNote();
      const units = buildTextUnits([spoken]);
      const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
      expect(units.flatMap((unit) => words(unit.text))).toEqual(words(spoken.transcript));
      const starts = new Set(spoken.segments.map((segment) => segment.startTime));
      for (const unit of units) {
        expect(words(unit.text).length).toBeLessThanOrEqual(40);
        expect(starts.has(unit.startTime ?? -1)).toBe(true);
      }
      // The pauses cut the lecture into pieces of which over a third are under 6 words; few units are.
      const pieces = spoken.transcript.split(/(?<=\.) /);
      expect(pieces.filter((piece) => words(piece).length < 6).length).toBeGreaterThan(pieces.length / 3);
      expect(units.filter((unit) => words(unit.text).length < 6).length).toBeLessThan(units.length / 10);
      const said = (clause: string) => units.some((unit) => unit.statement.toLowerCase().includes(clause));
      expect(said("cellular respiration is the process by which cells break down glucose and use the energy stored in its bonds to make atp.")).toBe(
        true,
      );
      expect(said("atp synthase is an enzyme that uses the flow of protons to attach a phosphate group to adp.")).toBe(true);
      expect(said("pumping ions across a membrane it spends atp.")).toBe(true);
    });

    it("reads the real librivox transcript as media stores it into whole sentences", () => {
      const units = buildTextUnits([librivoxMediaNote()]);
      expect(units.map((unit) => [unit.text, unit.startTime])).toEqual([
        ["And mr john guess what and then at leisure to consider how much there might be greatly in his power to do how about.", 0.15],
        ["He was not until this blows young man.", 8.53],
        ["Hello study rather cold hearted and rather selfish is to the oldest those.", 12.72],
        ["Had he married a more amiable woman he might have been made still more respectable many watts.", 19.23],
        ["He might even have been made a real boy I'm self.", 26.45],
      ]);
    });
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
    // The user note (30 s) links to the segment it was written in (the one that started last before it, at 0 s),
    // and sits between the transcript units by its own time.
    expect(units.map((unit) => [unit.text, unit.startTime])).toEqual([
      ["Glycolysis splits glucose.", 0],
      ["Net gain of glycolysis: two ATP per glucose.", 0],
      ["The Krebs cycle runs in the matrix.", 60],
    ]);
  });

  it("keeps a user note's own time when the note has no timed segments, and the first segment's for a note written before it", () => {
    const untimed = buildTextUnits([
      note({ transcript: "Osmosis moves water.", userNotes: [{ timestamp: 12, content: "Water follows solutes.", contentType: "text" }] }),
    ]);
    expect(untimed.find((unit) => unit.text === "Water follows solutes.")?.startTime).toBe(12);
    const early = buildTextUnits([
      note({
        transcript: "Osmosis moves water.",
        segments: [{ text: "Osmosis moves water.", startTime: 5, endTime: 8 }],
        userNotes: [{ timestamp: 1, content: "Water follows solutes.", contentType: "text" }],
      }),
    ]);
    expect(early.find((unit) => unit.text === "Water follows solutes.")?.startTime).toBe(5);
  });

  it("numbers units across notes and keeps each note's id", () => {
    const units = buildTextUnits([
      note({ noteId: "a", transcript: "First note here." }),
      note({ noteId: "b", transcript: "Second note. Two sentences." }),
    ]);
    expect(units.map((unit) => [unit.id, unit.sourceId, unit.sourceIndex])).toEqual([
      [0, "a", 0],
      [1, "b", 1],
      [2, "b", 1],
    ]);
  });
});
