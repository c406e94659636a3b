// What a cloze asks for and what a true/false swaps: whole phrases, as the eval set of issue #18 showed them cut.
import { analyseNotes, type StudyText } from "../../../../src/adapters/generation/offline/analysis";
import { answerFor, equatedKeys, standsAlone } from "../../../../src/adapters/generation/offline/exercises";
import { selectDiverse } from "../../../../src/adapters/generation/offline/selection";
import { tagBatch } from "../../../../src/adapters/generation/offline/tagging";
import type { SourceNote } from "../../../../src/domain/study-material";

const note = (transcript: string): SourceNote => ({ noteId: "answers", title: "Answers", transcript, segments: [], userNotes: [] });

/** The tags compromise and the repairs give each word of one sentence. */
function tagsOf(sentence: string): Record<string, string[]> {
  return Object.fromEntries(tagBatch([sentence])[0].map((token) => [token.text, [...token.tags]]));
}

/** The answer a cloze on the term (by key) asks for in the first unit that says `sentence`. */
function answerIn(text: StudyText, sentence: string, termKey: string): string | null {
  const unit = text.units.find((candidate) => candidate.text.startsWith(sentence));
  const term = text.terms.find((candidate) => candidate.key === termKey);
  if (!unit || !term) throw new Error(`no unit "${sentence}" or no key term "${termKey}" (${text.terms.map((t) => t.key).join(", ")})`);
  return answerFor(text, unit.id, term)?.text ?? null;
}

describe("tagging repairs", () => {
  it("keeps a formula in one word", () => {
    const words = tagBatch(["Merge sort takes O(n log n) time but needs O(n) extra memory, and bubble sort takes O(n^2) time."])[0].map(
      (t) => t.text,
    );
    expect(words).toEqual(expect.arrayContaining(["O(n log n)", "O(n)", "O(n^2)"]));
    expect(words).not.toContain("log");
  });

  it("reads a verb as a verb after a name or noun when an adverb or 'to' follows it", () => {
    expect(tagsOf("Strong acids such as hydrochloric acid ionise completely in water.").ionise).toContain("Verb");
    expect(tagsOf("Hydrochloric acid and sodium hydroxide react to give salt and water.").react).toContain("Verb");
    // An adverb before another verb belongs to that verb: "sort" stays the noun it is.
    expect(tagsOf("Merge sort always takes the same time.").sort).toContain("Noun");
  });

  it("reads a sentence's first word as a noun where grammar or the lexicon says so", () => {
    expect(tagsOf("Guard cells open and close the stomata.").Guard).toContain("Noun");
    expect(tagsOf("Price elasticity of demand measures how strongly buyers respond.").Price).toContain("Noun");
    expect(tagsOf("Note that cells divide.").Note).toContain("Verb");
  });

  it("reads a word in -s before a base-form verb as its plural subject, and after a person's name as a verb", () => {
    expect(tagsOf("Comparison sorts decide the order by comparing pairs.").sorts).toEqual(["Noun", "Plural"]);
    expect(tagsOf("Their half-brother John Dashwood inherits the family estate.").inherits).toContain("Verb");
  });
});

describe("answers", () => {
  let text: StudyText;
  beforeAll(async () => {
    text = await analyseNotes([
      note(
        "The law of demand states that the quantity demanded falls as the price rises. The law of supply states that the quantity supplied rises as the price rises. " +
          "Price elasticity of demand measures how strongly the quantity demanded responds to a change in price. Demand is elastic when the elasticity is above one. " +
          "Critics read the novel as a debate about balancing reason and emotion. Emotion drives Marianne, while reason guides Elinor. " +
          "In 1923 Johannes Brønsted and Thomas Lowry defined an acid as a proton donor. Brønsted worked in Copenhagen from 1908. " +
          "An indicator such as litmus changes colour with pH. A change in pH of one unit is a tenfold change in concentration. " +
          "In Pharmaceutical Society of Great Britain v Boots Cash Chemists (1953) the court held that goods on a shelf are an invitation to treat. " +
          "Their cores fuse heavier and heavier elements until they reach iron. Elements heavier than iron are made in supernovae. " +
          "Stars more than about eight times the mass of the Sun end very differently. The Sun will become a white dwarf.",
      ),
    ]);
  });

  it("asks for a whole 'X of Y' phrase, not one of its nouns", () => {
    expect(answerIn(text, "The law of demand", "law")).toBe("law of demand");
    expect(answerIn(text, "The law of supply", "law")).toBe("law of supply");
    expect(answerIn(text, "Price elasticity of demand", "elasticity")).toBe("Price elasticity of demand");
  });

  it("asks for both nouns of a pair said as one, a date alone, and a name in full", () => {
    expect(answerIn(text, "Critics read", "emotion")).toBe("reason and emotion");
    expect(answerIn(text, "In 1923", "1923")).toBe("1923");
    expect(answerIn(text, "In Pharmaceutical Society", "boots cash chemists")).toBe("Pharmaceutical Society of Great Britain v Boots Cash Chemists");
  });

  it("does not run a name into a noun that is used as a verb", () => {
    expect(answerIn(text, "Stars more than", "sun")).toBe("Sun");
  });

  it("does not ask for a term where the sentence says its words only as a verb", () => {
    expect(answerIn(text, "An indicator such as litmus", "change")).toBeNull();
  });

  it("swaps in a true/false only a term that is a noun phrase of its own", () => {
    const unitSaying = (start: string) => text.units.find((unit) => unit.text.startsWith(start))?.id ?? -1;
    const term = (key: string) => text.terms.find((candidate) => candidate.key === key);
    expect(standsAlone(text, unitSaying("Their cores fuse"), term("element")!)).toBe(false);
    expect(standsAlone(text, unitSaying("In 1923"), term("1923")!)).toBe(false);
    expect(standsAlone(text, unitSaying("Elements heavier"), term("element")!)).toBe(true);
  });
});

describe("one answer once", () => {
  const candidate = (unitId: number, termKey: string, more: { isName?: boolean; alsoKeys?: string[] } = {}) => ({
    unitId,
    termKey,
    score: 10 - unitId,
    text: `${termKey} ${unitId}`,
    ...more,
  });

  it("takes a phrase inside a chosen phrase, or a name inside a chosen name, for the same answer; not a single common word", () => {
    const chosen = selectDiverse(
      [
        candidate(1, "deep ocean trench"),
        candidate(2, "ocean trench"),
        candidate(3, "elinor dashwood", { isName: true }),
        candidate(4, "elinor", { isName: true }),
        candidate(5, "weak acid"),
        candidate(6, "acid"),
      ],
      6,
    );
    expect(chosen.map((entry) => entry.termKey)).toEqual(["deep ocean trench", "elinor dashwood", "weak acid", "acid"]);
  });

  it("takes a term a definition equates its term with for the same answer", async () => {
    const text = await analyseNotes([
      note(
        "The master clock is the suprachiasmatic nucleus in the hypothalamus. Light that reaches the retina tells the suprachiasmatic nucleus what time it is. " +
          "ATP synthase is an enzyme that makes ATP in the inner membrane of the mitochondrion. An enzyme is a protein that speeds up a chemical reaction. " +
          "The master clock keeps the body on a daily rhythm of sleep and waking. Melatonin from the pineal gland rises in the evening when the master clock signals darkness. " +
          "ATP synthase turns as protons flow through it, and each turn of ATP synthase makes three molecules of ATP for the cell.",
      ),
    ]);
    const keysOf = (termKey: string) =>
      equatedKeys(
        text,
        text.definitions.find((definition) => definition.termKey === termKey)!,
      );
    expect(keysOf("master clock")).toEqual(["suprachiasmatic nucleus"]);
    // "an enzyme that …" names a class, not the same thing.
    expect(keysOf("atp synthase")).toEqual([]);
    const chosen = selectDiverse([candidate(1, "master clock", { alsoKeys: keysOf("master clock") }), candidate(2, "suprachiasmatic nucleus")], 2);
    expect(chosen.map((entry) => entry.termKey)).toEqual(["master clock"]);
  });
});
