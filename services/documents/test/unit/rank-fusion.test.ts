import { maxFusedScore, reciprocalRankFusion, RRF_K } from "../../src/domain/rank-fusion";

describe("reciprocalRankFusion", () => {
  it("scores each id by the sum of 1 / (60 + rank) over the lists holding it", () => {
    const fused = reciprocalRankFusion([
      ["a", "b", "c"],
      ["c", "a", "d"],
    ]);
    expect(RRF_K).toBe(60);
    expect(fused.map((item) => item.id)).toEqual(["a", "c", "b", "d"]);
    expect(fused[0]).toEqual({ id: "a", score: 1 / 61 + 1 / 62, ranks: [1, 2] });
    expect(fused[1]).toEqual({ id: "c", score: 1 / 63 + 1 / 61, ranks: [3, 1] });
    expect(fused[2]).toEqual({ id: "b", score: 1 / 62, ranks: [2, undefined] });
    expect(fused[3]).toEqual({ id: "d", score: 1 / 63, ranks: [undefined, 3] });
  });

  it("prefers an id found by both lists over one ranked first by a single list", () => {
    const keyword = ["solo", ...Array.from({ length: 4 }, (_, i) => `k${i}`), "both"];
    const semantic = [...Array.from({ length: 4 }, (_, i) => `s${i}`), "both"];
    expect(reciprocalRankFusion([keyword, semantic])[0].id).toBe("both");
  });

  it("breaks ties by the best single rank, then by first appearance", () => {
    const fused = reciprocalRankFusion([["x", "y"], ["y", "x"], ["z"]]);
    // x and y tie (1/61 + 1/62); z (1/61) is below them.
    expect(fused.map((item) => item.id)).toEqual(["x", "y", "z"]);
    expect(reciprocalRankFusion([["p"], ["q"]]).map((item) => item.id)).toEqual(["p", "q"]);
  });

  it("counts only the first occurrence of an id in a list, and accepts empty input", () => {
    expect(reciprocalRankFusion([["a", "a", "b"]])).toEqual([
      { id: "a", score: 1 / 61, ranks: [1] },
      { id: "b", score: 1 / 62, ranks: [2] },
    ]);
    expect(reciprocalRankFusion([])).toEqual([]);
    expect(reciprocalRankFusion([[], []])).toEqual([]);
  });

  it("takes another k, and names the highest possible score for normalisation", () => {
    expect(reciprocalRankFusion([["a"]], 1)[0].score).toBe(0.5);
    expect(maxFusedScore(2)).toBe(2 / 61);
    const top = reciprocalRankFusion([["a"], ["a"]])[0];
    expect(top.score / maxFusedScore(2)).toBeCloseTo(1, 12);
  });
});
