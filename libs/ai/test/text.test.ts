import {
  contentWords,
  ENGLISH_STOP_WORDS,
  isStopWord,
  normalizedTermFrequencies,
  normalizeTerm,
  splitSentences,
  termFrequencies,
  tokenizeWords,
  topTerms,
} from "@study/ai";

describe("splitSentences", () => {
  it("splits at sentence ends with ICU's rules", () => {
    expect(splitSentences("Cells divide. Do they always? No! They rest in G0… sometimes.")).toEqual([
      "Cells divide.",
      "Do they always?",
      "No!",
      "They rest in G0… sometimes.",
    ]);
  });

  it("does not split after common abbreviations, nor after Fig./No. before a number", () => {
    expect(splitSentences("Dr. Smith and Prof. Jones disagree, e.g. on mitosis. See Fig. 3 for details. The answer is no. Next topic.")).toEqual([
      "Dr. Smith and Prof. Jones disagree, e.g. on mitosis.",
      "See Fig. 3 for details.",
      "The answer is no.",
      "Next topic.",
    ]);
  });

  it("ends sentences at line breaks, collapses whitespace and drops empty pieces", () => {
    expect(splitSentences("  Heading without period\n\n  Body   text\tcontinues here.  \n--\n")).toEqual([
      "Heading without period",
      "Body text continues here.",
    ]);
    expect(splitSentences("")).toEqual([]);
  });

  it("leaves unpunctuated speech as one sentence", () => {
    expect(splitSentences("so today we talk about cells and how they divide")).toHaveLength(1);
  });
});

describe("tokenizeWords", () => {
  it("returns lower-cased words without punctuation, keeping contractions and numbers whole", () => {
    expect(tokenizeWords("Don’t stop—it's 3.14, state-of-the-art; naïve CAFÉ!")).toEqual([
      "don't",
      "stop",
      "it's",
      "3.14",
      "state",
      "of",
      "the",
      "art",
      "naïve",
      "café",
    ]);
  });
});

describe("stop words", () => {
  it("covers function words, contractions and spoken fillers, and no topic words", () => {
    for (const word of ["the", "and", "which", "don't", "um", "uh", "okay", "themselves"]) expect(ENGLISH_STOP_WORDS.has(word)).toBe(true);
    for (const word of ["cell", "energy", "photosynthesis", "war", "theorem"]) expect(isStopWord(word)).toBe(false);
    expect(isStopWord("The")).toBe(true);
  });
});

describe("term frequency", () => {
  it("folds regular plurals and possessives onto one term", () => {
    expect(
      ["cells", "studies", "classes", "boxes", "churches", "cell's", "process", "analysis", "species", "physics", "bus"].map(normalizeTerm),
    ).toEqual(["cell", "study", "class", "box", "church", "cell", "process", "analysis", "species", "physics", "bus"]);
  });

  it("keeps the content words of a text, in order", () => {
    expect(contentWords("The cells of a plant absorb light; the plant's cells store 2 kinds of energy.")).toEqual([
      "cell",
      "plant",
      "absorb",
      "light",
      "plant",
      "cell",
      "store",
      "kind",
      "energy",
    ]);
  });

  it("counts terms, normalises by the most frequent and ranks them stably", () => {
    const terms = ["cell", "energy", "cell", "light", "energy", "cell", "atp"];
    expect(termFrequencies(terms)).toEqual(
      new Map([
        ["cell", 3],
        ["energy", 2],
        ["light", 1],
        ["atp", 1],
      ]),
    );
    expect(normalizedTermFrequencies(terms)).toEqual(
      new Map([
        ["cell", 1],
        ["energy", 2 / 3],
        ["light", 1 / 3],
        ["atp", 1 / 3],
      ]),
    );
    expect(topTerms(terms, 3)).toEqual([
      { term: "cell", count: 3 },
      { term: "energy", count: 2 },
      { term: "atp", count: 1 },
    ]);
    expect(normalizedTermFrequencies([])).toEqual(new Map());
  });
});
