// The scoring rules of `npm run bench:generation` (issue #18), on hand-made cards: the benchmark's figures are only
// as good as these. The rules live with the benchmark (bench/src/generation/), which compiles on its own; jest's
// unit project looks only under libs/, services/ and gateway/, so their test sits with the service they measure.
import { loadEvalSet } from "../../../../bench/src/generation/eval-set";
import {
  cutFromLongerTerm,
  fromGarbled,
  gluedWords,
  kindOf,
  malformedReasons,
  normalizeTerm,
  prepareReference,
  readFlashcard,
  readQuestion,
  reproduces,
  scoreGuide,
  scoreSet,
  splitSentences,
  triviallyFalseReasons,
  wholeWordMatches,
  type LabelledSource,
} from "../../../../bench/src/generation/metrics";

const TEXT = [
  "Alfred Wegener proposed continental drift in 1912.",
  "The asthenosphere is the hot, weak layer of the mantle beneath the lithosphere.",
  "At transform boundaries plates slide past each other, as along the San Andreas Fault.",
  "The Himalayas formed where the Indian plate collided with the Eurasian plate.",
  "Photosynthesis converts light energy into chemical energy.",
  "The light-dependent reactions happen in the thylakoid membranes.",
  "Crystals cannot grow when the solution isn't saturated.",
].join(" ");

const SOURCE: LabelledSource = {
  text: TEXT,
  kind: "typed",
  sentences: splitSentences(TEXT),
  keyTerms: [
    { term: "Alfred Wegener", also: ["Wegener"], kind: "person" },
    { term: "continental drift", also: [] },
    { term: "1912", also: [] },
    { term: "asthenosphere", also: [] },
    { term: "lithosphere", also: [] },
    { term: "mantle", also: [] },
    { term: "transform boundaries", also: ["transform boundary"] },
    { term: "San Andreas Fault", also: [], kind: "place" },
    { term: "Himalayas", also: [], kind: "place" },
    { term: "Indian plate", also: [] },
    { term: "Eurasian plate", also: [] },
    { term: "tectonic plates", also: ["plates", "plate"] },
    { term: "light energy", also: [] },
    { term: "chemical energy", also: [] },
    { term: "light-dependent reactions", also: [] },
    { term: "thylakoid membranes", also: [] },
  ],
  keyFacts: [
    { id: "wegener", excerpt: "Alfred Wegener proposed continental drift in 1912", answers: ["Alfred Wegener", "continental drift", "1912"] },
    { id: "asthenosphere", excerpt: "The asthenosphere is the hot, weak layer of the mantle", answers: ["asthenosphere", "mantle"] },
    { id: "himalayas", excerpt: "The Himalayas formed where the Indian plate collided", answers: ["Himalayas", "Indian plate", "Eurasian plate"] },
  ],
  garbledTexts: [],
};
const reference = prepareReference(SOURCE);

const question = (fields: { question: string; type?: string; options?: string[]; correctAnswer: string; explanation: string }) => ({
  type: "multiple_choice",
  options: ["True", "False"],
  ...fields,
});

describe("the labelled set", () => {
  const lectures = loadEvalSet();

  it("loads without a label problem: at least eight lectures on different subjects, 10-45 sentences each", () => {
    expect(lectures.length).toBeGreaterThanOrEqual(8);
    expect(new Set(lectures.map((lecture) => lecture.subject)).size).toBeGreaterThanOrEqual(8);
    for (const lecture of lectures) expect(lecture.sentences.length).toBeGreaterThanOrEqual(10);
    expect(lectures.some((lecture) => lecture.garbledTexts.length > 0)).toBe(true);
  });

  it("calls none of the teacher's own key terms malformed, in the first sentence that holds it", () => {
    const flagged: string[] = [];
    for (const lecture of lectures) {
      const lectureReference = prepareReference(lecture);
      for (const term of lecture.keyTerms) {
        for (const form of [term.term, ...term.also]) {
          const sentence = lecture.sentences.find((candidate) => wholeWordMatches(candidate, form).length > 0);
          if (!sentence) continue;
          const reasons = malformedReasons(lectureReference, form, sentence);
          if (reasons.length) flagged.push(`${lecture.id}: ${form}: ${reasons.join("; ")}`);
        }
      }
    }
    expect(flagged).toEqual([]);
  });
});

describe("terms", () => {
  it("compare case-, article-, plural- and dash-insensitively", () => {
    expect(normalizeTerm("The Boundaries")).toBe(normalizeTerm("boundary"));
    expect(normalizeTerm("deep ocean trenches")).toBe("deep ocean trench");
    expect(normalizeTerm("Hertzsprung–Russell diagram")).toBe(normalizeTerm("Hertzsprung-Russell diagram"));
    expect(normalizeTerm("plate tectonics")).toBe("plate tectonics");
    expect(normalizeTerm("volcanoes")).toBe(normalizeTerm("volcano"));
  });
});

describe("reading cards and questions back", () => {
  it("reads a cloze card's answer and statement, and the text around its blank", () => {
    const item = readFlashcard({
      front: "The Himalayas formed where the _____ collided with the Eurasian plate.",
      back: "Indian plate — The Himalayas formed where the Indian plate collided with the Eurasian plate.",
    });
    expect(item).toMatchObject({ kind: "cloze", answer: "Indian plate" });
    expect(item.quoted).toContain("collided with the Eurasian plate.");
  });

  it("reads the term a definition, a reverse definition or a context card asks about", () => {
    expect(readFlashcard({ front: "What is the asthenosphere?", back: "The hot, weak layer of the mantle." })).toMatchObject({
      kind: "definition",
      answer: "asthenosphere",
    });
    expect(
      readFlashcard(
        {
          front: "Which term is this? The hot, weak layer of the mantle.",
          back: "Asthenosphere. The asthenosphere is the hot, weak layer of the mantle beneath the lithosphere.",
        },
        reference,
      ),
    ).toMatchObject({ kind: "reverse-definition", answer: "Asthenosphere" });
    expect(readFlashcard({ front: "What do your notes say about the mantle?", back: "x" })).toMatchObject({ kind: "context", answer: "mantle" });
    expect(readFlashcard({ front: "Name it", back: "Something else entirely, said at length." })).toMatchObject({
      kind: "unrecognised",
      answer: null,
    });
  });

  it("reads a false statement's swap from its explanation, or from the notes when the explanation says nothing", () => {
    const shown = "Alfred Wegener proposed the mantle in 1912.";
    const explained = readQuestion(
      question({
        question: `True or false: ${shown}`,
        type: "true_false",
        correctAnswer: "False",
        explanation: `False. The statement puts "the mantle" where the notes say "continental drift": "Alfred Wegener proposed continental drift in 1912."`,
      }),
    );
    expect(explained.swap).toEqual({ shown, original: "continental drift", replacement: "the mantle" });
    const unexplained = readQuestion(
      question({ question: `True or false: ${shown}`, type: "true_false", correctAnswer: "False", explanation: "No." }),
      reference,
    );
    expect(unexplained.swap).toMatchObject({ original: "continental drift", replacement: "the mantle" });
  });

  it("reads a multiple-choice question's answer, quoted text and statement", () => {
    const item = readQuestion({
      question: 'Complete the statement: "_____ proposed continental drift in 1912."',
      type: "multiple_choice",
      options: ["Alfred Wegener", "Himalayas", "mantle", "lithosphere"],
      correctAnswer: "Alfred Wegener",
      explanation: 'The notes say: "Alfred Wegener proposed continental drift in 1912."',
    });
    expect(item).toMatchObject({ kind: "mc-cloze", answer: "Alfred Wegener", statement: "Alfred Wegener proposed continental drift in 1912." });
    expect(item.distractors).toEqual(["Himalayas", "mantle", "lithosphere"]);
  });
});

describe("malformed answers", () => {
  it("accepts key terms and plain noun phrases", () => {
    for (const answer of ["Indian plate", "asthenosphere", "the Himalayas", "1912", "thylakoid membranes", "San Andreas Fault"])
      expect(malformedReasons(reference, answer, null)).toEqual([]);
  });

  it("refuses phrases run together, clauses, function-word edges, hyphen halves and text not in the notes", () => {
    expect(malformedReasons(reference, "boundaries plates", null)).toEqual([expect.stringContaining("two noun phrases run together")]);
    expect(malformedReasons(reference, "Wegener proposed", null)).toEqual([expect.stringContaining("holds a verb")]);
    expect(malformedReasons(reference, "plates slide", null)).toEqual([expect.stringContaining("holds a verb")]);
    expect(malformedReasons(reference, "layer of", null)).toEqual([expect.stringContaining("function word")]);
    expect(malformedReasons(reference, "dependent", null)).toEqual(["part of a hyphenated word"]);
    expect(malformedReasons(reference, "oceanic crust", null)).toContain("not in the notes as written");
  });

  it("finds a blank cut out of a longer key term, unless the answer is a form of that same term", () => {
    expect(cutFromLongerTerm(reference, "The Himalayas formed where the Indian _____ collided with the Eurasian plate.", "plate")).toBe(
      "Indian plate",
    );
    expect(cutFromLongerTerm(reference, "At transform _____ plates slide past each other.", "boundaries")).toBe("transform boundaries");
    expect(cutFromLongerTerm(reference, "The Himalayas formed where the _____ collided.", "Indian plate")).toBeNull();
  });
});

describe("text fidelity", () => {
  it("accepts the notes' text with a new capital, a full stop or bold, and refuses a lost space", () => {
    expect(reproduces(reference, "Crystals cannot grow when the solution isn't saturated")).toBe(true);
    expect(reproduces(reference, "The **asthenosphere** is the hot, weak layer of the mantle.")).toBe(true);
    expect(reproduces(reference, "crystals cannot grow")).toBe(true);
    expect(reproduces(reference, "Crystals cannotgrow when the solution isn't saturated")).toBe(false);
    expect(reproduces(reference, "The asthenosphere is the weak layer of the mantle")).toBe(false);
    expect(gluedWords(reference, "Crystals cannotgrow when the solution isn'tsaturated. Define plates.")).toEqual(["cannotgrow", "isn'tsaturated"]);
  });

  it("accepts a transcript without the engine's pause punctuation and case", () => {
    const transcript = prepareReference({ ...SOURCE, kind: "transcript", text: "After copying each chromosome is made of two. Sister chromatids." });
    expect(reproduces(transcript, "each chromosome is made of two sister chromatids")).toBe(true);
    expect(reproduces(prepareReference({ ...SOURCE, text: "made of two. Sister chromatids." }), "made of two sister chromatids")).toBe(false);
  });
});

describe("false statements false for a trivial reason", () => {
  const swap = (shown: string, original: string, replacement: string) => ({ shown, original, replacement });

  it("finds a term of another kind, a repeated term, a swapped head and a broken article", () => {
    const statement = "Alfred Wegener proposed continental drift in 1912.";
    expect(
      triviallyFalseReasons(
        reference,
        swap("Continental drift proposed continental drift in 1912.", "Alfred Wegener", "continental drift"),
        statement,
      ),
    ).toEqual(expect.arrayContaining([expect.stringContaining("a thing put in for a person"), expect.stringContaining("appears 2 times")]));
    const energy = "Photosynthesis converts light energy into chemical energy.";
    expect(triviallyFalseReasons(reference, swap("Photosynthesis converts light carbon into chemical carbon.", "energy", "carbon"), energy)).toEqual(
      expect.arrayContaining([expect.stringContaining("appears 2 times"), expect.stringContaining("only part of a noun phrase")]),
    );
    expect(kindOf(reference, "1912", null)).toBe("year");
    expect(kindOf(reference, "San Andreas Fault", null)).toBe("place");
  });

  it("passes a fair swap of two terms of one kind", () => {
    const statement = "The asthenosphere is the hot, weak layer of the mantle beneath the lithosphere.";
    const fair = swap("The lithosphere is the hot, weak layer of the mantle beneath the lithosphere.", "asthenosphere", "lithosphere");
    expect(triviallyFalseReasons(reference, fair, statement).filter((reason) => !reason.includes("appears"))).toEqual([]);
  });
});

describe("garbled transcript text", () => {
  it("finds three words in a row found only in a garbled segment", () => {
    const transcript = prepareReference({
      ...SOURCE,
      kind: "transcript",
      text: "Mr john guess what and then at leisure. In telophase a new nuclear envelope forms.",
      garbledTexts: ["Mr john guess what and then at leisure."],
    });
    expect(fromGarbled(transcript, "True or false: Mr john guess what and then at leisure in telophase")).toBe(true);
    expect(fromGarbled(transcript, "In telophase a new nuclear envelope forms.")).toBe(false);
  });
});

describe("a scored set", () => {
  const cloze = (front: string, answer: string, statement: string) => ({ front, back: `${answer} — ${statement}` });
  const wegener = "Alfred Wegener proposed continental drift in 1912.";
  const himalayas = "The Himalayas formed where the Indian plate collided with the Eurasian plate.";

  it("counts precision, recall over min(requested, facts), duplicate answers and the count", () => {
    const items = [
      cloze("_____ proposed continental drift in 1912.", "Alfred Wegener", wegener),
      cloze("Alfred Wegener proposed _____ in 1912.", "continental drift", wegener),
      cloze("The Himalayas formed where the Indian _____ collided with the Eurasian _____.", "plate", himalayas),
      cloze("The Himalayas formed where the _____ collided with the Eurasian plate.", "Indian plate", himalayas),
      cloze("Alfred _____ proposed continental drift in 1912.", "Wegener", wegener),
    ].map((card) => readFlashcard(card, reference));
    const set = scoreSet(reference, items, 10, "5 cards on the notes.");
    expect(set.items.map((item) => item.onTarget)).toEqual([true, true, true, true, true]);
    // "plate" asks nothing about the collision; Wegener is asked about under two names.
    expect(set.recalledFacts.sort()).toEqual(["himalayas", "wegener"]);
    expect(set.recall).toBeCloseTo(2 / 3);
    expect(set.duplicates).toEqual({ "Alfred Wegener": 2 });
    expect(set.duplicateCount).toBe(1);
    expect(set.items[2].malformed).toEqual(['cut from the longer key term "Indian plate"']);
    expect(set).toMatchObject({ countMet: false, reasonGiven: false, enoughFacts: false });
    expect(scoreSet(reference, items, 10, "the notes state 5 distinct facts").reasonGiven).toBe(true);
  });

  it("scores a study guide's coverage of the facts and its fidelity", () => {
    const guide = scoreGuide(reference, {
      title: "Plates — Study Guide",
      description: "A guide.",
      overview: "Alfred Wegener proposed continental drift in 1912. The Himalayas formed where the Indian plate collided with the Eurasian plate.",
      keyTerms: ["Indian plate", "layer"],
      learningObjectives: ["Compare Alfred Wegener and Himalayas."],
      studyTips: [],
      sections: [
        {
          title: "Mantle",
          content: "- The **asthenosphere** is the hot, weak layer of the mantle.\n- Crystals cannotgrow when the solution isn't saturated.",
        },
      ],
    });
    expect(guide.coveredFacts).toEqual(["wegener", "asthenosphere", "himalayas"]);
    expect(guide.offListKeyTerms).toEqual(["layer"]);
    expect(guide.corrupted).toEqual([expect.stringContaining("cannotgrow"), "glued words: cannotgrow"]);
  });
});
