import {
  highlightsOf,
  markedWords,
  queryWords,
  snippetHtml,
  storable,
  termsOf,
  typoBudget,
  typoDistance,
} from "../../src/adapters/index/postgres/search-text";
import { aRecord } from "../contract/search-index.contract";

describe("embedded index text handling", () => {
  it("cuts a query into lower-case words, punctuation and operators being separators, the last word kept last", () => {
    expect(queryWords(`"Photo" AND title:synthesis* (Café) 🌱`)).toEqual(["photo", "and", "title", "synthesis", "café"]);
    expect(queryWords("cell cell division cell")).toEqual(["division", "cell"]);
    expect(queryWords("&|!() \\ ' \u0000 🌱")).toEqual([]);
    expect(queryWords("x".repeat(201))).toEqual([]);
    expect(queryWords(Array.from({ length: 50 }, (_, i) => `w${i}`).join(" "))).toHaveLength(32);
  });

  it("measures typos as Meilisearch tolerates them, a prefix against the start of the term", () => {
    expect([typoBudget("cell"), typoBudget("cells"), typoBudget("chromoso"), typoBudget("chromosom")]).toEqual([0, 1, 1, 2]);
    expect(typoDistance("photosinthesis", "photosynthesis", false)).toBe(1);
    expect(typoDistance("photosnythesis", "photosynthesis", false)).toBe(1); // transposition
    expect(typoDistance("photosinth", "photosynthesis", false)).toBeGreaterThan(2);
    expect(typoDistance("photosinth", "photosynthesis", true)).toBe(1);
    expect(typoDistance("divison", "division", true)).toBe(1);
  });

  it("takes every word of title, keywords and description as terms, and only the frequent words of the content", () => {
    const record = aRecord("u", {
      title: "Cell Division",
      keywords: ["BIO-201", "Dr. Okonkwo"],
      description: "A summary",
      content: "mitosis mitosis meiosis spindle spindle spindle ab ab",
    });
    expect(termsOf(record)).toEqual(["201", "bio", "cell", "division", "dr", "mitosis", "okonkwo", "spindle", "summary"]);
  });

  it("turns a headline into HTML where only the matches are markup", () => {
    const headline = 'a <b>bold</b> & \uE000Photosynthesis\uE001 "quoted" \uE000stray';
    expect(snippetHtml(headline)).toBe("a &lt;b&gt;bold&lt;/b&gt; &amp; <mark>Photosynthesis</mark> &quot;quoted&quot; stray");
    expect(markedWords(headline)).toEqual(["Photosynthesis"]);
  });

  it("removes what PostgreSQL cannot store and the snippet delimiters from records", () => {
    const record = storable(aRecord("u", { title: "a\u0000b\uE000c", content: "\uE001x", metadata: { k: "v\u0000" } }));
    expect([record.title, record.content, record.metadata]).toEqual(["abc", "x", { k: "v" }]);
  });

  it("highlights the words of the record the query matched, as written, the last word as a prefix", () => {
    const record = aRecord("u", { title: "Photosynthesis basics", content: "Chloroplasts capture light; chlorophyll too." });
    const slots = [
      { words: ["photosynthesis"], prefix: false },
      { words: ["chloro"], prefix: true },
    ];
    expect(highlightsOf(record, [], slots)).toEqual(["Photosynthesis", "Chloroplasts"]);
    expect(highlightsOf(record, ["photosynthesis", "Light"], [{ words: ["basic"], prefix: false }])).toEqual(["photosynthesis", "Light"]);
  });
});
