import { firstCharacters } from "../../src/routes/imports";

describe("firstCharacters (titles made from video titles and file names)", () => {
  it("keeps text of at most `max` characters whole", () => {
    expect(firstCharacters("Lecture 1: Cells", 255)).toBe("Lecture 1: Cells");
    expect(firstCharacters("x".repeat(255), 255)).toBe("x".repeat(255));
  });

  it("cuts longer text to `max` code points, never half of a surrogate pair", () => {
    const title = `${"🧬".repeat(200)}${"x".repeat(100)}`;
    const shortened = firstCharacters(title, 255);
    expect([...shortened]).toHaveLength(255);
    expect(shortened).toBe(`${"🧬".repeat(200)}${"x".repeat(55)}`);
    // 255 UTF-16 units would have ended in a lone high surrogate.
    expect(firstCharacters("🧬".repeat(200), 255)).toBe("🧬".repeat(200));
    expect(firstCharacters(`a${"🧬".repeat(200)}`, 2)).toBe("a🧬");
  });
});
