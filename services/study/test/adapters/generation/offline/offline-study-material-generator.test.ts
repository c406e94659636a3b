import { AppError } from "@study/platform/errors";
import { analyseNotes, type StudyText } from "../../../../src/adapters/generation/offline/analysis";
import { OfflineStudyMaterialGenerator } from "../../../../src/adapters/generation/offline/offline-study-material-generator";
import { similarity } from "../../../../src/adapters/generation/offline/exercises";
import {
  assertValidFlashcardSet,
  assertValidQuiz,
  assertValidStudyGuide,
  type GeneratedQuestion,
  type SourceNote,
} from "../../../../src/domain/study-material";
import {
  asMediaPocketsphinx,
  asPocketsphinx,
  contractionsNote,
  hourLongNote,
  lectureNote,
  librivoxMediaNote,
  librivoxNote,
  mediaLectureNote,
  twoTopicNote,
} from "./fixtures/notes";
import { comparable, generationInput, quotedSource, segmentOf, startsIn, transcriptSays } from "./helpers";

const generator = new OfflineStudyMaterialGenerator();
const lecture = lectureNote();
const BLANK = "_____";

/** The key term an option names (by its shown singular or plural form, or the regular singular of a term said only in the plural). */
function termNamed(text: StudyText, option: string) {
  return text.terms.find(
    (term) =>
      [term.display, term.pluralDisplay].some((form) => form?.toLowerCase() === option.toLowerCase()) ||
      new RegExp(`^(?:${term.pattern.source})$`, "iu").test(option),
  );
}

/** A cloze card's back: "<answer> — <sentence>". */
function clozeParts(back: string): { answer: string; sentence: string } {
  const [answer, ...rest] = back.split(" — ");
  return { answer, sentence: rest.join(" — ") };
}

const FALSE_EXPLANATION = /^False\. The statement puts "(.+?)" where the notes say "(.+?)": "(.+)"$/;
const withoutArticles = (text: string) =>
  comparable(text)
    .replace(/\b(?:a|an)\b/g, " ")
    .replace(/\s+/g, " ");

async function expectNotEnoughContent(notes: SourceNote[]) {
  for (const generate of [
    () => generator.generateFlashcards({ ...generationInput(notes), cardCount: 10 }),
    () => generator.generateQuiz({ ...generationInput(notes), questionCount: 10 }),
    () => generator.generateStudyGuide(generationInput(notes)),
  ]) {
    const error = await generate().then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ kind: "precondition", code: "NOT_ENOUGH_CONTENT" });
  }
}

describe("OfflineStudyMaterialGenerator", () => {
  let lectureText: StudyText;
  beforeAll(async () => {
    lectureText = await analyseNotes([lecture]);
  });

  it('is named "offline"', () => {
    expect(generator.name).toBe("offline");
  });

  describe("flashcards", () => {
    it.each([10, 25, 50])("makes %i valid cards with distinct fronts from a real lecture", async (cardCount) => {
      const set = await generator.generateFlashcards({ ...generationInput([lecture]), cardCount });
      expect(() => assertValidFlashcardSet(set)).not.toThrow();
      expect(set.cards).toHaveLength(cardCount);
      expect(new Set(set.cards.map((card) => card.front.toLowerCase())).size).toBe(cardCount);
      expect(set.title).toBe("Cellular Respiration — Flashcards");
      expect(set.description).toMatch(new RegExp(`^${cardCount} cards on ATP, the electron transport chain`));
    });

    it("turns defining sentences into definition cards", async () => {
      const set = await generator.generateFlashcards({ ...generationInput([lecture], "EASY"), cardCount: 20 });
      const backOf = (front: string) => set.cards.find((card) => card.front === front)?.back;
      expect(backOf("What is glycolysis?")).toBe("The first stage of cellular respiration.");
      expect(backOf("What is ATP (adenosine triphosphate)?")).toBe("The energy currency of the cell.");
      expect(backOf("What is an enzyme?")).toBe("A protein that speeds up a chemical reaction without being used up by it.");
      expect(backOf("What does oxidative phosphorylation refer to?")).toBe(
        "The production of ATP using the energy released as electrons move down the electron transport chain.",
      );
      // The definition spans two transcript segments: the card links to the first.
      const krebs = set.cards.find((card) => card.front === "What is the Krebs cycle (citric acid cycle)?");
      expect(krebs?.back).toBe("A series of eight reactions in the mitochondrial matrix that completely oxidizes acetyl CoA to carbon dioxide.");
      expect(segmentOf(lecture, krebs?.source ?? null).text).toBe(
        "The Krebs cycle, also known as the citric acid cycle, is a series of eight reactions in the mitochondrial matrix",
      );
    });

    it("blanks a key term out of a sentence the lecture says, and gives the term and the sentence on the back", async () => {
      const set = await generator.generateFlashcards({ ...generationInput([lecture], "HARD"), cardCount: 30 });
      const clozes = set.cards.filter((card) => card.front.includes(BLANK));
      expect(clozes.length).toBeGreaterThanOrEqual(10);
      for (const card of clozes) {
        const { answer, sentence } = clozeParts(card.back);
        expect(termNamed(lectureText, answer) ?? lectureText.terms.find((term) => term.pattern.test(answer))).toBeDefined();
        expect(sentence).toContain(answer);
        expect(comparable(card.front.split(BLANK).join(answer))).toBe(comparable(sentence));
        expect(transcriptSays(lecture, sentence)).toBe(true);
        expect(startsIn(lecture, segmentOf(lecture, card.source), sentence)).toBe(true);
      }
    });

    it("makes fewer cards than asked when the notes run out of distinct answers, and says why; never repeats an answer", async () => {
      const transcript =
        "Photosynthesis happens in the chloroplast. The chloroplast contains chlorophyll. Chlorophyll absorbs red and blue light. " +
        "Light energy splits water in the thylakoid membrane. The thylakoid membrane makes ATP and NADPH. " +
        "The Calvin cycle uses ATP and NADPH to fix carbon dioxide. The Calvin cycle runs in the stroma of the chloroplast. " +
        "The stroma surrounds the thylakoid membrane. Carbon dioxide enters the leaf through the stomata. The stomata close when the plant loses too much water.";
      const short: SourceNote = { noteId: "short", title: "Photosynthesis", transcript, segments: [], userNotes: [] };
      const sentences = (await analyseNotes([short])).units.length;
      const set = await generator.generateFlashcards({ ...generationInput([short]), cardCount: 20 });
      expect(() => assertValidFlashcardSet(set)).not.toThrow();
      // Every sentence is asked about, some twice (for another of their terms), but no answer comes back.
      expect(set.cards.length).toBeGreaterThanOrEqual(sentences);
      expect(set.cards.length).toBeLessThan(20);
      expect(new Set(set.cards.map((card) => card.front)).size).toBe(set.cards.length);
      const answers = set.cards.map((card) => (card.front.includes(BLANK) ? clozeParts(card.back).answer : card.front).toLowerCase());
      expect(new Set(answers).size).toBe(answers.length);
      expect(set.shortfallReason).toBe(`the notes state ${set.cards.length} distinct facts to ask about, and no fact is asked twice (one card each)`);
      expect(set.cards.every((card) => card.source?.startTime === null)).toBe(true);
    });

    it("links every card to its note and to the start of a transcript segment", async () => {
      const set = await generator.generateFlashcards({ ...generationInput([lecture]), cardCount: 50 });
      for (const card of set.cards) segmentOf(lecture, card.source);
      const times = set.cards.map((card) => card.source?.startTime ?? -1);
      expect(times).toEqual([...times].sort((a, b) => a - b));
    });
  });

  describe("quiz", () => {
    it.each([10, 25])("asks %i valid questions, mixing multiple choice and true/false", async (questionCount) => {
      const quiz = await generator.generateQuiz({ ...generationInput([lecture]), questionCount });
      expect(() => assertValidQuiz(quiz)).not.toThrow();
      expect(quiz.questions).toHaveLength(questionCount);
      expect(new Set(quiz.questions.map((question) => question.question)).size).toBe(questionCount);
      const types = quiz.questions.map((question) => question.type);
      expect(types).toContain("multiple_choice");
      expect(types).toContain("true_false");
      expect(quiz.title).toBe("Cellular Respiration — Quiz");
    });

    it("offers four distinct key terms of the text, the answer among them, and explains from the source", async () => {
      const quiz = await generator.generateQuiz({ ...generationInput([lecture]), questionCount: 25 });
      const multipleChoice = quiz.questions.filter((question) => question.type === "multiple_choice");
      expect(multipleChoice.length).toBeGreaterThanOrEqual(10);
      for (const question of multipleChoice) {
        expect(new Set(question.options.map((option) => option.toLowerCase())).size).toBe(4);
        expect(question.options).toContain(question.correctAnswer);
        const terms = question.options.map((option) => termNamed(lectureText, option));
        expect(terms.every(Boolean)).toBe(true);
        const quoted = quotedSource(question.explanation);
        expect(transcriptSays(lecture, quoted)).toBe(true);
        if (question.question.startsWith("Complete the statement")) {
          const statement = /^Complete the statement: "(.+)"$/.exec(question.question)?.[1] ?? "";
          expect(comparable(statement.split(BLANK).join(question.correctAnswer))).toBe(comparable(quoted));
          // No option is already printed in the statement.
          for (const term of terms) expect(term?.pattern.test(statement)).toBe(false);
        }
      }
    });

    it("states facts as said for true, and swaps their key term for another key term for false", async () => {
      const quiz = await generator.generateQuiz({ ...generationInput([lecture], "EASY"), questionCount: 20 });
      const trueFalse = quiz.questions.filter((question) => question.type === "true_false");
      const answers = trueFalse.map((question) => question.correctAnswer);
      expect(answers).toContain("True");
      expect(answers).toContain("False");
      for (const question of trueFalse) {
        expect(question.options).toEqual(["True", "False"]);
        const statement = question.question.replace(/^True or false: /, "");
        if (question.correctAnswer === "True") {
          expect(question.explanation).toBe(`True. The notes state: "${statement}"`);
          expect(transcriptSays(lecture, statement)).toBe(true);
          expect(startsIn(lecture, segmentOf(lecture, question.source), statement)).toBe(true);
        } else {
          const [, swappedIn, original, source] = FALSE_EXPLANATION.exec(question.explanation) ?? [];
          expect(termNamed(lectureText, swappedIn)).toBeDefined();
          expect(lectureText.terms.some((term) => term.pattern.test(original))).toBe(true);
          expect(transcriptSays(lecture, source)).toBe(true);
          expect(statement).not.toBe(source);
          expect(transcriptSays(lecture, statement)).toBe(false);
          const restored = statement.replace(new RegExp(swappedIn.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi"), original);
          expect(withoutArticles(restored)).toBe(withoutArticles(source));
        }
      }
    });

    it("links every question to the segment its sentence starts in", async () => {
      const quiz = await generator.generateQuiz({ ...generationInput([lecture]), questionCount: 30 });
      for (const question of quiz.questions) {
        const quoted = quotedSource(question.explanation);
        expect(startsIn(lecture, segmentOf(lecture, question.source), quoted)).toBe(true);
      }
    });
  });

  describe("difficulty", () => {
    it("favours definitions and frequent terms for EASY, cloze on rarer terms deeper in the text for HARD", async () => {
      const [easy, hard] = await Promise.all(
        (["EASY", "HARD"] as const).map((difficulty) => generator.generateFlashcards({ ...generationInput([lecture], difficulty), cardCount: 15 })),
      );
      expect(easy.cards).not.toEqual(hard.cards);
      const definitions = (cards: typeof easy.cards) => cards.filter((card) => /^(What|How) /.test(card.front)).length;
      expect(definitions(easy.cards)).toBeGreaterThan(definitions(hard.cards));
      // HARD asks for the term from its definition.
      expect(hard.cards.every((card) => !/^(What|How) /.test(card.front))).toBe(true);

      const answerFrequency = (cards: typeof easy.cards) => {
        const counts = cards
          .filter((card) => card.front.includes(BLANK))
          .map((card) => lectureText.terms.find((term) => term.pattern.test(clozeParts(card.back).answer))?.unitIds.length ?? 0);
        return counts.reduce((sum, count) => sum + count, 0) / Math.max(1, counts.length);
      };
      const easyClozes = await generator.generateFlashcards({ ...generationInput([lecture], "EASY"), cardCount: 50 });
      expect(answerFrequency(easyClozes.cards)).toBeGreaterThan(answerFrequency(hard.cards));
      const meanStart = (cards: typeof easy.cards) => cards.reduce((sum, card) => sum + (card.source?.startTime ?? 0), 0) / cards.length;
      expect(meanStart(hard.cards)).toBeGreaterThan(meanStart(easy.cards));
    });

    it("offers the most similar distractors at HARD and more true/false at EASY", async () => {
      const [easy, hard] = await Promise.all(
        (["EASY", "HARD"] as const).map((difficulty) => generator.generateQuiz({ ...generationInput([lecture], difficulty), questionCount: 20 })),
      );
      const meanDistractorSimilarity = (questions: GeneratedQuestion[]) => {
        const values = questions
          .filter((question) => question.type === "multiple_choice")
          .flatMap((question) => {
            const answer = termNamed(lectureText, question.correctAnswer);
            return question.options
              .filter((option) => option !== question.correctAnswer)
              .map((option) => similarity(answer ?? lectureText.terms[0], termNamed(lectureText, option) ?? lectureText.terms[0]));
          });
        return values.reduce((sum, value) => sum + value, 0) / values.length;
      };
      expect(meanDistractorSimilarity(hard.questions)).toBeGreaterThan(meanDistractorSimilarity(easy.questions));
      const trueFalse = (questions: GeneratedQuestion[]) => questions.filter((question) => question.type === "true_false").length;
      expect(trueFalse(easy.questions)).toBeGreaterThan(trueFalse(hard.questions));
    });

    it("asks to define at EASY and to compare at HARD in the study guide", async () => {
      const [easy, hard] = await Promise.all(
        (["EASY", "HARD"] as const).map((difficulty) => generator.generateStudyGuide(generationInput([lecture], difficulty))),
      );
      const starting = (objectives: string[], verb: string) => objectives.filter((objective) => objective.startsWith(verb)).length;
      expect(starting(easy.learningObjectives, "Define")).toBeGreaterThan(starting(hard.learningObjectives, "Define"));
      expect(starting(hard.learningObjectives, "Compare")).toBeGreaterThan(0);
      expect(starting(easy.learningObjectives, "Compare")).toBe(0);
      expect(easy.studyTips).not.toEqual(hard.studyTips);
    });
  });

  describe("study guide", () => {
    it("gives a valid guide whose sections follow the lecture, with its key terms, objectives and tips", async () => {
      const guide = await generator.generateStudyGuide(generationInput([lecture]));
      expect(() => assertValidStudyGuide(guide)).not.toThrow();
      expect(guide.title).toBe("Cellular Respiration — Study Guide");
      expect(guide.keyTerms).toEqual(expect.arrayContaining(["ATP", "glycolysis", "Krebs cycle", "NADH", "electron transport chain"]));
      expect(guide.sections.length).toBeGreaterThanOrEqual(3);
      const starts = guide.sections.map((section) => segmentOf(lecture, section.source).startTime);
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
      expect(starts[0]).toBe(lecture.segments[0].startTime);
      for (const section of guide.sections) {
        const bullets = section.content.split("\n");
        expect(bullets.every((bullet) => bullet.startsWith("- "))).toBe(true);
        for (const bullet of bullets) expect(transcriptSays(lecture, bullet.slice(2).replace(/\*\*/g, ""))).toBe(true);
      }
      const subsections = guide.sections.flatMap((section) => section.subsections.map((subsection) => subsection.title));
      expect(subsections).toEqual(expect.arrayContaining(["Glycolysis", "Krebs cycle", "Fermentation"]));
      expect(guide.overview.split(/(?<=\.) /).every((sentence) => transcriptSays(lecture, sentence))).toBe(true);
      expect(guide.learningObjectives.length).toBeGreaterThanOrEqual(3);
      expect(guide.studyTips.some((tip) => /from \d+:\d\d/.test(tip))).toBe(true);
    });

    it("splits a session on two unrelated topics into sections that keep the topics apart", async () => {
      const note = twoTopicNote();
      const guide = await generator.generateStudyGuide(generationInput([note]));
      const geology = /plate|tecton|mantle|crust|lithosphere|asthenosphere|ridge|boundar|subduction|earthquake|seafloor/i;
      const economics = /price|demand|supply|equilibrium|surplus|shortage|market|elasticity|ceiling|buyer|seller|quantity|change/i;
      const switchTime = note.segments.find((segment) => segment.text.includes("switch gears"))?.startTime ?? 0;

      const topics = guide.sections.map((section) => {
        const start = segmentOf(note, section.source).startTime;
        const isGeology = geology.test(section.title);
        const isEconomics = economics.test(section.title);
        expect(isGeology !== isEconomics).toBe(true);
        expect(isGeology).toBe(start < switchTime);
        return { start, topic: isGeology ? "geology" : "economics" };
      });
      expect(new Set(topics.map((section) => section.topic))).toEqual(new Set(["geology", "economics"]));
      // The first economics section starts where the lecturer switches topic.
      expect(topics.find((section) => section.topic === "economics")?.start).toBe(switchTime);
      const defined = (topic: string) =>
        guide.sections
          .filter((_, index) => topics[index].topic === topic)
          .flatMap((section) => section.subsections.map((subsection) => subsection.title));
      expect(defined("geology")).toEqual(expect.arrayContaining(["Asthenosphere", "Transform boundary"]));
      expect(defined("economics")).toEqual(expect.arrayContaining(["Equilibrium price", "Surplus", "Shortage"]));
      // The overview covers both halves.
      expect(guide.overview).toMatch(geology);
      expect(guide.overview).toMatch(economics);
    });
  });

  describe("pocketsphinx transcripts (lower case, no punctuation, short phrases)", () => {
    const spoken = asPocketsphinx(lecture);

    it("still finds definitions, cloze sentences and sections, each linked to a phrase's start", async () => {
      const cards = await generator.generateFlashcards({ ...generationInput([spoken]), cardCount: 30 });
      expect(cards.cards).toHaveLength(30);
      expect(cards.cards.map((card) => card.front)).toEqual(expect.arrayContaining(["What is glycolysis?", "What is fermentation?"]));
      for (const card of cards.cards) {
        const segment = segmentOf(spoken, card.source);
        if (card.front.includes(BLANK)) expect(startsIn(spoken, segment, clozeParts(card.back).sentence)).toBe(true);
      }
      const quiz = await generator.generateQuiz({ ...generationInput([spoken]), questionCount: 10 });
      expect(() => assertValidQuiz(quiz)).not.toThrow();
      expect(quiz.questions).toHaveLength(10);
      for (const question of quiz.questions) segmentOf(spoken, question.source);
      const guide = await generator.generateStudyGuide(generationInput([spoken]));
      expect(guide.sections.length).toBeGreaterThanOrEqual(3);
      expect(guide.keyTerms).toEqual(expect.arrayContaining(["atp", "glycolysis", "electron transport chain"]));
    });

    it("cuts the unpunctuated stream into sentence-sized units at phrase boundaries", async () => {
      const text = await analyseNotes([spoken]);
      const phraseStarts = new Set(spoken.segments.map((segment) => segment.startTime));
      for (const unit of text.units) {
        expect(unit.text.split(" ").length).toBeLessThanOrEqual(40);
        expect(phraseStarts.has(unit.startTime ?? -1)).toBe(true);
      }
      expect(text.units.length).toBeLessThan(spoken.segments.length);
    });
  });

  it("asks about the subject, not about what the lecture says of itself (the result, the difference, the goal …)", async () => {
    const transcript = [
      "Glycolysis splits one glucose molecule into two pyruvate molecules in the cytoplasm.",
      "The result is a net gain of two ATP for every glucose molecule.",
      "The Krebs cycle oxidizes acetyl CoA in the mitochondrial matrix.",
      "The result is a set of loaded electron carriers, NADH and FADH2.",
      "The difference is that fermentation has no electron transport chain.",
      "The difference is where the electrons from NADH finally end up.",
      "The goal is a steady supply of ATP for the working cell.",
      "The goal of fermentation is the recycling of NAD plus for glycolysis.",
      "The takeaway is that oxygen is the final electron acceptor of the chain.",
      "The takeaway is the link between oxygen and the ATP yield of the cell.",
      "The electron transport chain pumps protons across the inner membrane.",
      "ATP synthase is an enzyme that makes ATP from the flow of protons.",
    ].join(" ");
    const note: SourceNote = { noteId: "talk", title: "Respiration recap", transcript, segments: [], userNotes: [] };
    const text = await analyseNotes([note]);
    for (const generic of ["result", "difference", "goal", "takeaway"]) expect(text.terms.map((term) => term.key)).not.toContain(generic);
    expect(text.definitions.map((definition) => definition.termKey)).toEqual(["atp synthase"]);
    const set = await generator.generateFlashcards({ ...generationInput([note], "EASY"), cardCount: 15 });
    for (const card of set.cards) expect(card.front).not.toMatch(/\b(?:result|difference|goal|takeaway)\?$/);
  });

  describe("pocketsphinx transcripts as media stores them (a full stop and a capital at every pause)", () => {
    const spoken = mediaLectureNote();
    /** What the learner reads as a statement: true/false items (as the notes say them), cloze sentences, guide bullets. */
    async function statements(note: SourceNote): Promise<string[]> {
      const input = generationInput([note]);
      const quiz = await generator.generateQuiz({ ...input, questionCount: 30 });
      const cards = await generator.generateFlashcards({ ...input, cardCount: 40 });
      const guide = await generator.generateStudyGuide(input);
      return [
        // False items swap a term; the other words are as said.
        ...quiz.questions.filter((question) => question.type === "true_false").map((question) => quotedSource(question.explanation)),
        ...cards.cards.filter((card) => card.front.includes(BLANK)).map((card) => clozeParts(card.back).sentence),
        ...guide.sections.flatMap((section) => section.content.split("\n").map((bullet) => bullet.slice(2).replace(/\*\*/g, ""))),
      ];
    }

    it("states whole clauses, not the fragments between pauses", async () => {
      for (const note of [spoken, asMediaPocketsphinx(twoTopicNote())]) {
        const said = [...new Set(await statements(note))];
        expect(said.length).toBeGreaterThan(30);
        const words = (statement: string) => statement.split(" ").length;
        // Short clauses of their own ("Fermentation itself makes no extra atp.") are fine, and few.
        expect(said.filter((statement) => words(statement) < 8).length).toBeLessThan(said.length / 10);
        // What the pauses cut off before fragments were joined.
        for (const fragment of ["One more nadh for each pyruvate.", "Through an enzyme called atp synthase.", "Up two electrons and a proton."]) {
          expect(said).not.toContain(fragment);
        }
        expect(said.filter((statement) => /\b(?:the|a|an|of|and|or|that|which)\.?$/i.test(statement))).toEqual([]);
        for (const statement of said) expect(transcriptSays(note, statement)).toBe(true);
      }
    });

    it("reads definitions across pauses and links everything to the start of a segment", async () => {
      const set = await generator.generateFlashcards({ ...generationInput([spoken], "EASY"), cardCount: 30 });
      const backOf = (front: string) => set.cards.find((card) => card.front === front)?.back;
      expect(backOf("What is cellular respiration?")).toBe(
        "The process by which cells break down glucose and use the energy stored in its bonds to make atp.",
      );
      expect(backOf("What is atp synthase?")).toBe("An enzyme that uses the flow of protons to attach a phosphate group to adp.");
      for (const card of set.cards) {
        const segment = segmentOf(spoken, card.source);
        if (card.front.includes(BLANK)) expect(startsIn(spoken, segment, clozeParts(card.back).sentence)).toBe(true);
      }
      const quiz = await generator.generateQuiz({ ...generationInput([spoken]), questionCount: 15 });
      expect(() => assertValidQuiz(quiz)).not.toThrow();
      expect(quiz.questions).toHaveLength(15);
      for (const question of quiz.questions) segmentOf(spoken, question.source);
      const guide = await generator.generateStudyGuide(generationInput([spoken]));
      expect(guide.sections.length).toBeGreaterThanOrEqual(3);
      expect(guide.keyTerms).toEqual(expect.arrayContaining(["atp", "glycolysis", "electron transport chain", "nadh"]));
    });

    it("refuses the real 30 seconds of librivox speech as media stores it", async () => {
      await expectNotEnoughContent([librivoxMediaNote()]);
    });
  });

  it("links material drawn from several notes to each of them, and names it after the course", async () => {
    const notes = [lecture, twoTopicNote()];
    const set = await generator.generateFlashcards({ ...generationInput(notes), cardCount: 40 });
    expect(set.title).toBe("BIO 101 — Flashcards");
    expect(new Set(set.cards.map((card) => card.source?.noteId))).toEqual(new Set(notes.map((note) => note.noteId)));
    for (const card of set.cards) segmentOf(notes.find((note) => note.noteId === card.source?.noteId) as SourceNote, card.source);
    const guide = await generator.generateStudyGuide(generationInput(notes));
    const noteOfSections = guide.sections.map((section) => section.source?.noteId);
    // Sections run note by note: all of the first note's, then the second's.
    expect(noteOfSections).toEqual(
      [...noteOfSections].sort((a, b) => notes.findIndex((note) => note.noteId === a) - notes.findIndex((note) => note.noteId === b)),
    );
    expect(new Set(noteOfSections).size).toBe(2);
  });

  it("reproduces the notes' characters: contractions keep the space after them", async () => {
    const note = contractionsNote();
    const input = generationInput([note]);
    const cards = await generator.generateFlashcards({ ...input, cardCount: 15 });
    const quiz = await generator.generateQuiz({ ...input, questionCount: 12 });
    const guide = await generator.generateStudyGuide(input);
    const written = [
      ...cards.cards.flatMap((card) => [card.front, card.back]),
      ...quiz.questions.flatMap((question) => [question.question, question.explanation]),
      guide.overview,
      ...guide.sections.flatMap((section) => [section.content, ...section.subsections.map((subsection) => subsection.content)]),
    ];
    const contractions = written.join(" ").match(/\b(?:can't|cannot|don't|doesn't|it's|that's|won't)\S*/giu) ?? [];
    expect(contractions.length).toBeGreaterThan(5);
    for (const contraction of contractions)
      expect(["can't", "cannot", "don't", "doesn't", "it's", "that's", "won't"]).toContain(contraction.toLowerCase().replace(/[.,:;"]+$/u, ""));
    // Every sentence quoted back is the note's own, character for character.
    for (const question of quiz.questions) expect(note.transcript).toContain(quotedSource(question.explanation));
  });

  it("gives the same output for the same input", async () => {
    const twice = async () => {
      const fresh = new OfflineStudyMaterialGenerator();
      return Promise.all([
        fresh.generateFlashcards({ ...generationInput([lecture], "HARD"), cardCount: 30 }),
        fresh.generateQuiz({ ...generationInput([lecture], "HARD"), questionCount: 15 }),
        fresh.generateStudyGuide(generationInput([lecture], "HARD")),
        fresh.generateQuiz({ ...generationInput([mediaLectureNote()]), questionCount: 15 }),
        fresh.generateStudyGuide(generationInput([mediaLectureNote()])),
      ]);
    };
    expect(await twice()).toEqual(await twice());
  });

  it("analyses the same sources once for flashcards, a quiz and a study guide, and keeps the last four analyses", async () => {
    const analysed: string[] = [];
    const counting = new OfflineStudyMaterialGenerator((notes, signal, more) => {
      analysed.push(notes.map((note) => note.noteId).join("+"));
      return analyseNotes(notes, signal, more);
    });
    const fromLecture = generationInput([lecture], "HARD");
    const cards = await counting.generateFlashcards({ ...fromLecture, cardCount: 10 });
    await counting.generateQuiz({ ...fromLecture, questionCount: 10 });
    await counting.generateStudyGuide(generationInput([lecture], "EASY"));
    expect(analysed).toEqual([lecture.noteId]);
    // The reused analysis gives what a fresh one gives.
    expect(cards).toEqual(await new OfflineStudyMaterialGenerator().generateFlashcards({ ...fromLecture, cardCount: 10 }));

    // Other focus areas mark other units: analysed anew. Four more sources push the lecture's analysis out.
    await counting.generateStudyGuide({ ...fromLecture, focusAreas: ["glycolysis"] });
    for (const note of [mediaLectureNote(), twoTopicNote(), contractionsNote()]) await counting.generateStudyGuide(generationInput([note]));
    await counting.generateStudyGuide(fromLecture);
    expect(analysed).toHaveLength(6);
    expect(analysed.at(-1)).toBe(lecture.noteId);
  });

  describe("too little text", () => {
    it("refuses a note of two sentences with NOT_ENOUGH_CONTENT", async () => {
      const transcript = "Welcome back everyone. Today we talk about cells.";
      await expectNotEnoughContent([
        { noteId: "n", title: "Short", transcript, segments: [{ text: transcript, startTime: 0, endTime: 4 }], userNotes: [] },
      ]);
    });

    it("refuses an empty transcript", async () => {
      await expectNotEnoughContent([{ noteId: "n", title: "Empty", transcript: "", segments: [], userNotes: [] }]);
    });

    it("refuses 30 seconds of real pocketsphinx output", async () => {
      await expectNotEnoughContent([librivoxNote()]);
    });
  });

  describe("abort", () => {
    it("rejects at once when the signal is already aborted", async () => {
      const controller = new AbortController();
      controller.abort(new Error("client went away"));
      await expect(generator.generateQuiz({ ...generationInput([lecture]), questionCount: 10 }, controller.signal)).rejects.toThrow(
        "client went away",
      );
    });

    it("stops between phases when the signal aborts while it works", async () => {
      // A generator each time: one that has analysed these notes already would skip the analysis's phases.
      for (const generate of [
        (signal: AbortSignal) => new OfflineStudyMaterialGenerator().generateFlashcards({ ...generationInput([lecture]), cardCount: 10 }, signal),
        (signal: AbortSignal) => new OfflineStudyMaterialGenerator().generateQuiz({ ...generationInput([lecture]), questionCount: 10 }, signal),
        (signal: AbortSignal) => new OfflineStudyMaterialGenerator().generateStudyGuide(generationInput([lecture]), signal),
      ]) {
        const controller = new AbortController();
        const pending = generate(controller.signal);
        setImmediate(() => controller.abort());
        await expect(pending).rejects.toMatchObject({ name: "AbortError" });
      }
    });
  });

  it.each([
    ["an hour-long lecture (9,000 words)", "words", () => hourLongNote()],
    [
      "the same hour as media stores pocketsphinx output (fragments rejoined)",
      "words of media pocketsphinx text",
      () => asMediaPocketsphinx(hourLongNote()),
    ],
  ])("generates full material from %s (timings printed; speed is measured by figures, not asserted)", async (_case, wordsLabel, makeNote) => {
    const note = makeNote();
    expect(note.transcript.split(" ").length).toBeGreaterThanOrEqual(9000);
    await generator.generateStudyGuide(generationInput([lecture])); // warm up the tagger
    const timings: Record<string, number> = {};
    const timed = async <T>(kind: string, generate: () => Promise<T>) => {
      const started = performance.now();
      const result = await generate();
      timings[kind] = Math.round(performance.now() - started);
      return result;
    };
    const set = await timed("flashcards", () => generator.generateFlashcards({ ...generationInput([note]), cardCount: 50 }));
    const quiz = await timed("quiz", () => generator.generateQuiz({ ...generationInput([note]), questionCount: 50 }));
    const guide = await timed("study guide", () => generator.generateStudyGuide(generationInput([note])));
    expect(set.cards).toHaveLength(50);
    expect(quiz.questions).toHaveLength(50);
    expect(guide.sections.length).toBeGreaterThanOrEqual(8);
    console.info(`offline generator on ${note.transcript.split(" ").length} ${wordsLabel} (ms): ${JSON.stringify(timings)}`);
  });
});
