import { analyseNotes, type StudyText } from "../../../../src/adapters/generation/offline/analysis";
import { compareText } from "../../../../src/adapters/generation/offline/deterministic";
import { asPocketsphinx, lectureNote, twoTopicNote } from "./fixtures/notes";

describe("key terms", () => {
  let lecture: StudyText;
  beforeAll(async () => {
    lecture = await analyseNotes([lectureNote()]);
  });
  const keys = (text: StudyText) => text.terms.map((term) => term.key);

  it("finds the lecture's noun phrases and salient single terms", () => {
    expect(keys(lecture)).toEqual(
      expect.arrayContaining([
        "atp",
        "glycolysis",
        "nadh",
        "pyruvate",
        "krebs cycle",
        "electron transport chain",
        "atp synthase",
        "oxidative phosphorylation",
        "fermentation",
      ]),
    );
    expect(lecture.terms.slice(0, 6).map((term) => term.display)).toEqual(
      expect.arrayContaining(["ATP", "electron transport chain", "glycolysis", "NADH"]),
    );
  });

  it("drops parts of phrases that stand for the phrase, and words with no subject matter", () => {
    for (const dropped of [
      "transport",
      "transport chain",
      "electron transport",
      "chain",
      "cycle",
      "lecture",
      "thing",
      "today",
      "lot",
      "way",
      "example",
      "stage",
    ]) {
      expect(keys(lecture)).not.toContain(dropped);
    }
  });

  it("merges plurals and spellings, showing the singular and the text's own capitals", () => {
    const enzyme = lecture.terms.find((term) => term.key === "enzyme");
    expect(enzyme).toMatchObject({ display: "enzyme", pluralDisplay: "enzymes" });
    expect(lecture.terms.find((term) => term.key === "krebs cycle")).toMatchObject({ display: "Krebs cycle", inProse: "the Krebs cycle" });
    expect(lecture.terms.find((term) => term.key === "substrate level phosphorylation")?.display).toBe("substrate-level phosphorylation");
  });

  it("ranks by weight, ties alphabetically, and tells frequent from rare terms", () => {
    const terms = lecture.terms;
    for (let index = 1; index < terms.length; index += 1) {
      const [before, after] = [terms[index - 1], terms[index]];
      expect(before.weight > after.weight || (before.weight === after.weight && compareText(before.key, after.key) < 0)).toBe(true);
    }
    const mostFrequent = [...terms].sort((a, b) => b.unitIds.length - a.unitIds.length)[0];
    expect(mostFrequent.rarity).toBe(0);
    expect(Math.max(...terms.map((term) => term.rarity))).toBe(1);
  });

  it("marks defined terms and finds their definitions", () => {
    const defined = lecture.definitions.map((definition) => definition.termKey);
    expect(defined).toEqual(expect.arrayContaining(["glycolysis", "atp", "krebs cycle", "fermentation", "chemiosmosis", "anaerobic respiration"]));
    for (const key of defined) expect(lecture.terms.find((term) => term.key === key)?.defined).toBe(true);
  });

  it("finds the same terms in the lecture's pocketsphinx transcript", async () => {
    const spoken = await analyseNotes([asPocketsphinx(lectureNote())]);
    expect(keys(spoken)).toEqual(
      expect.arrayContaining(["atp", "glycolysis", "nadh", "pyruvate", "electron transport chain", "fermentation", "cellular respiration"]),
    );
  });

  it("separates the vocabularies of two topics", async () => {
    const session = await analyseNotes([twoTopicNote()]);
    expect(keys(session)).toEqual(
      expect.arrayContaining(["plate tectonic", "asthenosphere", "transform boundary", "equilibrium price", "demand curve", "surplus", "shortage"]),
    );
  });
});
