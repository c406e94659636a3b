// What a cloze asks for and what a true/false swaps: whole phrases, as the eval set of issue #18 showed them cut.
import { analyseNotes, type StudyText } from "../../../../src/adapters/generation/offline/analysis";
import { OfflineStudyMaterialGenerator } from "../../../../src/adapters/generation/offline/offline-study-material-generator";
import { answerFor, blankPhrase, equatedKeys, sameAnswerKeys, standsAlone } from "../../../../src/adapters/generation/offline/exercises";
import { selectDiverse } from "../../../../src/adapters/generation/offline/selection";
import { tagBatch } from "../../../../src/adapters/generation/offline/tagging";
import type { SourceNote } from "../../../../src/domain/study-material";

const note = (transcript: string): SourceNote => ({ noteId: "answers", title: "Answers", transcript, segments: [], userNotes: [] });

/** Sentences on another subject, so a few sentences under test make notes long enough to generate from. */
const ELSEWHERE =
  " Volcanoes erupt molten rock called magma through vents in the crust. Basalt lava flows far because it is runny, while rhyolite lava is thick and explosive." +
  " Geologists monitor gas emissions and ground swelling to forecast eruptions, and seismometers record the tremors that rising magma causes.";

const shortNote = (transcript: string) => note(transcript + ELSEWHERE);

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

  it("keeps a name whole across 'of' and 'in', and leaves out the describing words before it", async () => {
    const names = await analyseNotes([
      shortNote(
        "Marianne falls for the dashing John Willoughby at Barton. John Willoughby later marries the wealthy Miss Grey for her money. " +
          "Melvin Calvin received the Nobel Prize in Chemistry in 1961 for mapping the cycle. The Nobel Prize in Chemistry is given in Stockholm. " +
          "The Bank of England raises interest rates when inflation is expected to exceed its target. The Bank of England is independent.",
      ),
    ]);
    expect(answerIn(names, "Marianne falls", "john willoughby")).toBe("John Willoughby");
    expect(answerIn(names, "Melvin Calvin received", "chemistry")).toBe("Nobel Prize in Chemistry");
    expect(answerIn(names, "The Bank of England raises", "england")).toBe("Bank of England");
  });

  it("does not join a place after 'in' to a name, nor a formula to the noun after it", async () => {
    const text = await analyseNotes([
      shortNote(
        "Mrs Dashwood and her daughters move to Barton Cottage in Devonshire. Barton Cottage is small but comfortable. " +
          "Merge sort always takes O(n log n) time but needs O(n) extra memory. Quicksort averages O(n log n) time on random input.",
      ),
    ]);
    expect(answerIn(text, "Mrs Dashwood and her daughters", "barton cottage")).toBe("Barton Cottage");
    expect(answerIn(text, "Merge sort always takes", "o(n log n)")).toBe("O(n log n)");
  });

  it("joins names across 'of the', and blanks a name without its possessive", async () => {
    const war = await analyseNotes([
      shortNote(
        "The Battle of the Somme in 1916 cost more than a million casualties. The Somme offensive began on 1 July 1916. " +
          "Germany's unrestricted submarine warfare helped bring the United States into the war in 1917. Germany surrendered in 1918. " +
          "The Triple Entente joined France, Russia and Britain against the Central Powers. The Central Powers lost the war.",
      ),
    ]);
    expect(answerIn(war, "The Battle of the Somme", "somme")).toBe("Battle of the Somme");
    expect(answerIn(war, "Germany's unrestricted", "germany")).toBe("Germany");
    expect(answerIn(war, "The Triple Entente", "central powers")).toBe("Central Powers");
  });

  it("asks for the whole phrase a possessive or a spoken code opens", async () => {
    const spoken = await analyseNotes([
      shortNote(
        "The body's internal clock is the circadian rhythm of about twenty four hours. Light resets the body's internal clock every morning. " +
          "The protein p fifty three can halt the cycle at the g one checkpoint. Cells that pass the g one checkpoint copy their dna. " +
          "When checkpoints fail cells divide out of control and that can lead to cancer.",
      ),
    ]);
    expect(answerIn(spoken, "The body's internal clock", "internal clock")).toBe("body's internal clock");
    expect(answerIn(spoken, "The protein p fifty", "checkpoint")).toBe("g one checkpoint");
  });

  it("keeps the side a noun names, and blanks no part of a hyphenated word", async () => {
    const heart = await analyseNotes([
      shortNote(
        "Blood returns to the right atrium through the vena cava. The right atrium passes blood to the right ventricle. " +
          "A small p-value means the data would be unlikely if the null hypothesis were true. The value of the test statistic is compared with a critical value.",
      ),
    ]);
    expect(answerIn(heart, "Blood returns", "right atrium")).toBe("right atrium");
    const unit = heart.units.find((candidate) => candidate.text.startsWith("A small p-value"))!;
    expect(blankPhrase(unit.statement, { text: "value", key: "value", isTerm: true })).toBeNull();
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

describe("what the notes do not let a card ask", () => {
  it("keeps a list said without commas apart, and takes no key term from misrecognised speech", async () => {
    const text = await analyseNotes([
      shortNote(
        "Mitosis has four stages prophase metaphase anaphase and telophase. In prophase the chromosomes condense. In metaphase the chromosomes line up. " +
          "In anaphase the sister chromatids are pulled apart. In telophase a new nuclear envelope forms. Mr john guess what and then at leisure the of it. " +
          "Mr john guess what the for a in the and sell them.",
      ),
    ]);
    expect(answerIn(text, "Mitosis has four stages", "metaphase")).toBe("metaphase");
    expect(text.terms.map((term) => term.key)).not.toContain("john guess");
  });

  it("states nothing from a segment the recogniser scored low, even when it reads as English", async () => {
    const said = [
      { text: "Stars form inside giant molecular clouds of hydrogen gas and dust.", confidence: 0.93 },
      { text: "Gravity pulls a dense clump of the cloud together into a protostar.", confidence: 0.91 },
      // Misheard, yet grammatical: only the recogniser's score gives it away.
      { text: "The red giant sells its outer layers to a planetary nebula company.", confidence: 0.31 },
      { text: "A star that fuses hydrogen in its core is on the main sequence.", confidence: 0.92 },
      { text: "The red giant later sheds its outer layers as a planetary nebula.", confidence: 0.88 },
      { text: "What is left behind is a white dwarf, a hot core about the size of Earth.", confidence: 0.9 },
      { text: "A white dwarf cannot be heavier than about 1.4 solar masses, the Chandrasekhar limit.", confidence: 0.62 },
    ];
    const segments = said.map((segment, index) => ({ ...segment, startTime: index * 5, endTime: index * 5 + 5 }));
    const transcript = said.map((segment) => segment.text).join(" ");
    const scored = await analyseNotes([{ noteId: "stars", title: "Stars", transcript, segments, userNotes: [] }]);
    const flagged = scored.units.filter((unit) => scored.garbled[unit.id]).map((unit) => unit.text);
    expect(flagged).toEqual(["The red giant sells its outer layers to a planetary nebula company."]);
    // Without scores the same sentence is taken as said: the grammar is all there is to go on.
    const unscored = await analyseNotes([
      { noteId: "stars", title: "Stars", transcript, segments: segments.map(({ confidence: _, ...rest }) => rest), userNotes: [] },
    ]);
    expect(unscored.garbled.some(Boolean)).toBe(false);
  });

  it("starts no key term inside a name or with the words describing one", async () => {
    const text = await analyseNotes([
      shortNote(
        "In the United Kingdom inflation is measured by the Consumer Price Index. Inflation in the United Kingdom rose in 2022. " +
          "Mrs Dashwood moves to a cottage on the estate of her cousin Sir John Middleton. Sir John Middleton welcomes the family warmly.",
      ),
    ]);
    const keys = text.terms.map((term) => term.key);
    expect(keys).not.toContain("kingdom inflation");
    expect(keys.filter((key) => key.startsWith("cousin"))).toEqual([]);
  });

  it("reads a causative's bare infinitive, and a lower-case first name, as verbs", () => {
    expect(tagsOf("High blood pressure makes the heart work harder.").work).toContain("Verb");
    expect(tagsOf("Austria-Hungary declared war on Serbia, and the alliance system drew in Russia.").drew).toContain("Verb");
  });

  it("reads a noun-or-verb word after a noun as the clause's verb when the clause has no other", () => {
    expect(tagsOf("The pulmonary valve and the aortic valve stop blood from flowing back.").stop).toContain("Verb");
    expect(tagsOf("The median is more robust than the mean when the data contain outliers, which are rare.").contain).toContain("Verb");
    // The clause's verb is elsewhere: the word stays the noun it is.
    expect(tagsOf("The cell cycle has two main parts.").cycle).toContain("Noun");
    expect(tagsOf("Oxygen is the final electron acceptor of the electron transport chain.").chain).toContain("Noun");
  });

  it("reads the verb of a plural whose example stands before it", () => {
    expect(tagsOf("C4 plants such as maize concentrate carbon dioxide in bundle sheath cells.").concentrate).toContain("Verb");
    expect(tagsOf("C4 plants such as maize concentrate carbon dioxide in bundle sheath cells.").plants).toContain("Noun");
  });

  it("does not take a noun and the verb after it for one phrase", () => {
    const tokens = tagBatch(["In animal cells a cleavage furrow pinches the cell in two."])[0];
    expect(tokens.find((token) => token.text === "pinches")?.tags.has("Verb")).toBe(true);
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

  it("takes the two sides of 'A is the B' for the same answer, and a title before a name for none", async () => {
    const text = await analyseNotes([
      shortNote(
        "The body's internal clock is the circadian rhythm, and it isn't exactly 24 hours long. Light resets the circadian rhythm every morning. " +
          "The body's internal clock drifts without daylight. Mrs Carlill used the smoke ball as directed. In Carlill v Carbolic Smoke Ball Co the court found a unilateral offer.",
      ),
    ]);
    const unit = text.units.find((candidate) => candidate.text.startsWith("The body's internal clock is"))!;
    const clock = text.terms.find((term) => term.key === "circadian rhythm")!;
    expect(sameAnswerKeys(text, unit.id, clock)).toEqual(["internal clock"]);
    const chosen = selectDiverse(
      [candidate(1, "carlill v carbolic smoke ball co", { isName: true }), candidate(2, "mrs carlill", { isName: true })],
      2,
    );
    expect(chosen.map((entry) => entry.termKey)).toEqual(["carlill v carbolic smoke ball co"]);
  });
});

describe("a new user's ten sentences (issue #18)", () => {
  const sentences =
    "Alfred Wegener proposed continental drift in 1912. The lithosphere is the rigid outer layer of Earth. " +
    "The asthenosphere is the hot, weak layer of the mantle beneath the lithosphere. Oceanic crust is denser than continental crust. " +
    "At divergent boundaries plates move apart and new oceanic crust forms at a mid-ocean ridge. " +
    "At convergent boundaries the denser oceanic crust sinks beneath continental crust in subduction zones, which produce deep ocean trenches. " +
    "The Himalayas formed where the Indian plate collided with the Eurasian plate. " +
    "At transform boundaries plates slide past each other horizontally, as along the San Andreas Fault. " +
    "Elinor Dashwood visits Norland Park every summer. Photosynthesis converts light energy into chemical energy. " +
    "Succulent plants save water in dry climates by opening their stomata at night.";
  const input = {
    courseName: "Earth Science",
    difficulty: "HARD" as const,
    notes: [{ noteId: "ten", title: "Plate tectonics", transcript: sentences, segments: [], userNotes: [] }],
  };

  it("takes no preposition and no phrase that explains a defined term for a key term", async () => {
    const text = await analyseNotes(input.notes);
    const keys = text.terms.map((term) => term.key);
    expect(keys.filter((key) => /\bbeneath\b/.test(key))).toEqual([]);
    expect(keys).not.toContain("rigid outer layer");
  });

  it("asks to relate only terms a sentence relates, and to compare only terms of one kind", async () => {
    const guide = await new OfflineStudyMaterialGenerator().generateStudyGuide(input);
    const text = await analyseNotes(input.notes);
    const named = (written: string) => text.terms.find((term) => term.inProse === written)!;
    for (const objective of guide.learningObjectives) {
      const explain = /^Explain how (.+) relates? to (.+)\.$/.exec(objective);
      if (explain) {
        const [a, b] = [named(explain[1]), named(explain[2])];
        expect(text.units.some((unit) => text.termsByUnit[unit.id].includes(a) && text.termsByUnit[unit.id].includes(b))).toBe(true);
      }
      const compare = /^Compare (.+) and (.+)\.$/.exec(objective);
      if (compare) expect(named(compare[1]).entity).toBe(named(compare[2]).entity);
    }
    expect(guide.learningObjectives.filter((objective) => objective.startsWith("Explain how")).length).toBeGreaterThan(0);
    expect(guide.learningObjectives.filter((objective) => objective.startsWith("Compare")).length).toBeGreaterThan(0);
    expect(guide.learningObjectives).not.toContain("Compare Elinor Dashwood and Norland Park.");
    // The guide lists subject terms, not the everyday words the notes repeat.
    expect(text.terms.map((term) => term.key)).toContain("layer");
    expect(guide.keyTerms).not.toContain("layer");
  });
});
