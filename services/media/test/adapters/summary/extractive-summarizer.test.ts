import { splitSentences } from "@study/ai";
import { ExtractiveSummarizer } from "../../../src/adapters/summary/extractive-summarizer";

const LECTURE_NOTES = [
  "Photosynthesis is the process by which plants convert light energy into chemical energy.",
  "The lecture started ten minutes late because of a fire drill.",
  "During photosynthesis, chlorophyll in the chloroplasts absorbs light energy.",
  "The light energy splits water molecules and releases oxygen.",
  "Someone asked whether the exam would be on a Tuesday.",
  "Plants store the chemical energy as glucose, which fuels the plant cells.",
  "The Calvin cycle uses carbon dioxide and chemical energy to build glucose in the chloroplasts.",
  "Remember to bring a calculator next week.",
].join(" ");

const summarizer = new ExtractiveSummarizer();

describe("ExtractiveSummarizer", () => {
  it("picks the sentences about the dominant topic and keeps them in their original order", async () => {
    const summary = await summarizer.summarize(LECTURE_NOTES, { maxSentences: 3 });
    expect(summary).toBe(
      "Photosynthesis is the process by which plants convert light energy into chemical energy. " +
        "During photosynthesis, chlorophyll in the chloroplasts absorbs light energy. " +
        "Plants store the chemical energy as glucose, which fuels the plant cells.",
    );
    // Deterministic: the same input gives the same summary.
    expect(await summarizer.summarize(LECTURE_NOTES, { maxSentences: 3 })).toBe(summary);
  });

  it("never picks the off-topic remarks, whatever the length asked", async () => {
    for (const maxSentences of [1, 2, 4, 5]) {
      const sentences = splitSentences(await summarizer.summarize(LECTURE_NOTES, { maxSentences }));
      expect(sentences).toHaveLength(maxSentences);
      expect(sentences.join(" ")).not.toMatch(/fire drill|Tuesday|calculator/);
      const positions = sentences.map((sentence) => LECTURE_NOTES.indexOf(sentence));
      expect(positions.every((position) => position >= 0)).toBe(true);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }
  });

  it("returns a text of at most N sentences whole, with its whitespace tidied", async () => {
    expect(await summarizer.summarize("  Mitosis makes two cells.\n\nMeiosis makes four.  ", { maxSentences: 3 })).toBe(
      "Mitosis makes two cells. Meiosis makes four.",
    );
    expect(await summarizer.summarize("   ")).toBe("");
  });

  it("does not repeat a sentence the text repeats", async () => {
    const text = [
      "Enzymes lower the activation energy of reactions.",
      "Enzymes lower the activation energy of chemical reactions.",
      "Each enzyme binds its substrate at the active site.",
      "Temperature and pH change how fast enzymes work.",
      "The room was cold.",
    ].join(" ");
    const sentences = splitSentences(await summarizer.summarize(text, { maxSentences: 3 }));
    expect(sentences.filter((sentence) => sentence.startsWith("Enzymes lower"))).toHaveLength(1);
  });

  it("cuts unpunctuated speech-engine output into pseudo-sentences before choosing", async () => {
    const words = Array.from({ length: 120 }, (_, index) => (index % 10 === 0 ? "neurons" : `word${index}`));
    const summary = await summarizer.summarize(words.join(" "), { maxSentences: 2 });
    const chosen = summary.split(" ");
    expect(chosen.length).toBeLessThanOrEqual(50);
    expect(chosen.length).toBeGreaterThan(20);
    expect(words.join(" ")).toContain(chosen.slice(0, 10).join(" "));
  });

  it("uses five sentences unless told otherwise", async () => {
    const text = [
      "Cells divide by mitosis.",
      "Mitosis has four phases.",
      "In prophase the chromosomes condense.",
      "In metaphase the chromosomes line up at the cell's equator.",
      "In anaphase the sister chromatids separate.",
      "In telophase two nuclei form.",
      "Cytokinesis then splits the cell in two.",
    ].join(" ");
    expect(splitSentences(await summarizer.summarize(text))).toHaveLength(5);
  });

  it("rejects an aborted request", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(summarizer.summarize(LECTURE_NOTES, { signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
  });
});
