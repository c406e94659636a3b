import { hashText, seededShuffle } from "../../../../src/adapters/generation/offline/deterministic";
import type { KeyTerm } from "../../../../src/adapters/generation/offline/key-terms";
import { termPattern } from "../../../../src/adapters/generation/offline/key-terms";
import { formatTimestamp, listInProse } from "../../../../src/adapters/generation/offline/prose";
import { selectDiverse } from "../../../../src/adapters/generation/offline/selection";
import { blankOut, swapTerm } from "../../../../src/adapters/generation/offline/exercises";
import { topicBlocks } from "../../../../src/adapters/generation/offline/topic-segmentation";

function keyTerm(words: string[], display = words.join(" ")): KeyTerm {
  return {
    key: words.join(" "),
    words,
    display,
    pluralDisplay: null,
    inProse: display,
    isAcronym: false,
    specialist: false,
    weight: 1,
    rarity: 0,
    unitIds: [],
    defined: false,
    pattern: termPattern(words),
  };
}

describe("topicBlocks (TextTiling)", () => {
  const unitsAbout = (vocabulary: string[], count: number, offset = 0) =>
    Array.from({ length: count }, (_, index) => Array.from({ length: 15 }, (_, word) => vocabulary[(index * 3 + word + offset) % vocabulary.length]));
  const cells = ["cell", "membrane", "protein", "enzyme", "nucleus", "ribosome", "glucose", "mitochondrion", "atp", "lipid", "organelle"];
  const markets = ["price", "demand", "supply", "market", "buyer", "seller", "surplus", "shortage", "equilibrium", "curve", "elasticity"];

  it("starts a new block where the vocabulary changes", () => {
    expect(topicBlocks([...unitsAbout(cells, 12), ...unitsAbout(markets, 12)])).toEqual([
      [0, 12],
      [12, 24],
    ]);
  });

  it("keeps a short text in one block", () => {
    expect(topicBlocks(unitsAbout(cells, 5))).toEqual([[0, 5]]);
  });

  it("does not cut a text that stays on one topic", () => {
    const blocks = topicBlocks(unitsAbout(cells, 24));
    expect(blocks.length).toBeLessThanOrEqual(2);
    expect(blocks.flat()).toEqual(expect.arrayContaining([0, 24]));
  });
});

describe("term exercises", () => {
  const enzyme = keyTerm(["enzyme"]);

  it("blanks every mention of a term, in any of its forms, and reports the form written", () => {
    expect(blankOut("Enzymes speed up reactions; each enzyme is a protein.", enzyme)).toEqual({
      blanked: "_____ speed up reactions; each _____ is a protein.",
      answer: "Enzymes",
    });
    expect(blankOut("Proteins fold.", enzyme)).toBeNull();
  });

  it("swaps a term keeping the capital at the start and a/an agreement", () => {
    expect(swapTerm("An enzyme is a protein.", enzyme, "ATP synthase")).toBe("An ATP synthase is a protein.");
    expect(swapTerm("Each cell has a nucleus.", keyTerm(["nucleus"]), "organelle")).toBe("Each cell has an organelle.");
    expect(swapTerm("Glycolysis happens in the cytoplasm.", keyTerm(["glycolysis"]), "fermentation")).toBe("Fermentation happens in the cytoplasm.");
  });

  it("matches multi-word terms across hyphens and plurals", () => {
    const pattern = termPattern(["mid", "ocean", "ridge"]);
    expect(pattern.test("the mid-ocean ridges of the Atlantic")).toBe(true);
    expect(pattern.test("a midocean ridge")).toBe(false);
  });
});

describe("selectDiverse", () => {
  const candidate = (unitId: number, termKey: string, score: number, text = `${termKey}-${unitId}`) => ({ unitId, termKey, score, text });

  it("takes the best candidates, never one term or text twice, and a unit twice only when the units run out", () => {
    const chosen = selectDiverse(
      [candidate(1, "atp", 9), candidate(2, "atp", 8), candidate(1, "nadh", 7), candidate(3, "nadh", 6, "atp-1"), candidate(4, "krebs", 1)],
      4,
    );
    expect(chosen.map((entry) => `${entry.unitId}:${entry.termKey}`)).toEqual(["1:atp", "4:krebs", "1:nadh"]);
  });

  it("skips what `accept` refuses, and returns fewer when it runs out", () => {
    const chosen = selectDiverse([candidate(1, "a", 3), candidate(2, "b", 2), candidate(3, "c", 1)], 3, { accept: (entry) => entry.termKey !== "b" });
    expect(chosen.map((entry) => entry.termKey)).toEqual(["a", "c"]);
  });
});

describe("deterministic helpers", () => {
  it("shuffles the same way for the same seed, and differently for others", () => {
    const items = ["a", "b", "c", "d", "e", "f"];
    expect(seededShuffle(items, "seed")).toEqual(seededShuffle(items, "seed"));
    expect([...seededShuffle(items, "seed")].sort()).toEqual(items);
    const orders = new Set(["one", "two", "three", "four", "five"].map((seed) => seededShuffle(items, seed).join("")));
    expect(orders.size).toBeGreaterThan(1);
    expect(hashText("glycolysis")).toBe(hashText("glycolysis"));
  });

  it("writes lists and timestamps for people", () => {
    expect(listInProse(["ATP"])).toBe("ATP");
    expect(listInProse(["ATP", "NADH", "FADH2"])).toBe("ATP, NADH and FADH2");
    expect(formatTimestamp(75.9)).toBe("1:15");
    expect(formatTimestamp(3725)).toBe("1:02:05");
  });
});
