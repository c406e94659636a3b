import { contentWords } from "@study/ai";
import { analyseNotes, type StudyText } from "../../../../src/adapters/generation/offline/analysis";
import { difficultyProfile } from "../../../../src/adapters/generation/offline/difficulty-profile";
import { alsoTrue, chooseDistractors, optionForm, writtenInPlural } from "../../../../src/adapters/generation/offline/exercises";
import type { KeyTerm } from "../../../../src/adapters/generation/offline/key-terms";
import { OfflineStudyMaterialGenerator } from "../../../../src/adapters/generation/offline/offline-study-material-generator";
import type { Difficulty, GeneratedQuestion, SourceNote } from "../../../../src/domain/study-material";
import { asMediaPocketsphinx, lectureNote, mediaLectureNote, timedSegments, twoTopicNote } from "./fixtures/notes";
import { generationInput } from "./helpers";

const generator = new OfflineStudyMaterialGenerator();
const LEVELS: Difficulty[] = ["EASY", "MEDIUM", "HARD"];
const FALSE_EXPLANATION = /^False\. The statement puts "(.+?)" where the notes say "(.+?)": "(.+)"$/;

/** Sentences spoken one per segment, then stored the way media stores pocketsphinx output (full stops at pauses). */
function spokenNote(noteId: string, sentences: string[]): SourceNote {
  const segments = timedSegments(sentences);
  return asMediaPocketsphinx({
    noteId,
    title: "Electron carriers",
    transcript: segments.map((segment) => segment.text).join(" "),
    segments,
    userNotes: [],
  });
}

/** NADH and FADH2 do the same job here: "FADH2 carries electrons to the electron transport chain" is no false statement. */
const carriers = spokenNote("carriers", [
  "NADH carries electrons to the electron transport chain.",
  "FADH2 also carries electrons to the electron transport chain.",
  "NADH is made in glycolysis and in the Krebs cycle.",
  "FADH2 is made only in the Krebs cycle from succinate.",
  "Each NADH gives about two and a half ATP through the chain.",
  "Each FADH2 gives about one and a half ATP through the chain.",
  "The electron transport chain pumps protons across the inner membrane.",
  "ATP synthase uses the proton gradient across the inner membrane to make ATP.",
  "Oxygen is the final electron acceptor at the end of the chain.",
  "Glycolysis splits glucose into two pyruvate molecules in the cytoplasm.",
  "Pyruvate is oxidized to acetyl CoA in the mitochondrial matrix.",
  "The Krebs cycle releases carbon dioxide from acetyl CoA in the matrix.",
]);

const termOf = (text: StudyText, key: string) => text.terms.find((term) => term.key === key) as KeyTerm;

async function quizzes(note: SourceNote, questionCount = 30): Promise<GeneratedQuestion[]> {
  const all = await Promise.all(LEVELS.map((difficulty) => generator.generateQuiz({ ...generationInput([note], difficulty), questionCount })));
  return all.flatMap((quiz) => quiz.questions);
}

describe("false statements that are false", () => {
  it("does not swap in a term the notes say the same of", async () => {
    const text = await analyseNotes([carriers]);
    const [nadh, fadh2] = [termOf(text, "nadh"), termOf(text, "fadh2")];
    const statement = text.units.find((unit) => /^nadh carries electrons to the electron transport chain/i.test(unit.statement))?.statement ?? "";
    expect(statement).not.toBe("");
    // FADH2 is the term most like NADH, so the swap used to pick it: "FADH2 carries electrons to …", keyed False.
    const hard = difficultyProfile("HARD");
    expect(chooseDistractors(text, nadh, hard, { count: 1, visibleText: statement, plural: false })?.[0].key).toBe("fadh2");
    expect(alsoTrue(text, nadh, fadh2, statement)).toBe(true);
    const replacement = chooseDistractors(text, nadh, hard, { count: 1, visibleText: statement, plural: false, context: statement })?.[0];
    expect(replacement?.key).not.toBe("fadh2");
    // A term said elsewhere, not with these words, stays a fine replacement.
    expect(alsoTrue(text, nadh, termOf(text, "pyruvate"), statement)).toBe(false);
  });

  it("keys False only statements whose words no sentence of the notes says together", async () => {
    for (const [note, questionCount] of [
      [carriers, 6],
      [mediaLectureNote(), 30],
      [lectureNote(), 30],
    ] as const) {
      const text = await analyseNotes([note]);
      const unitWords = text.contentWordsByUnit.map((words) => new Set(words));
      const falseItems = (await quizzes(note, questionCount)).filter(
        (question) => question.type === "true_false" && question.correctAnswer === "False",
      );
      expect(falseItems.length).toBeGreaterThan(0);
      for (const question of falseItems) {
        const words = contentWords(question.question.replace(/^True or false: /, ""));
        expect(unitWords.some((said) => words.every((word) => said.has(word)))).toBe(false);
      }
    }
  });
});

describe("options that agree in number", () => {
  /**
   * Whether an option names a key term in the plural: a plural the text uses next to its singular ("protons"),
   * or a phrase the text only says in the plural ("carbon atoms"); "krebs" or "plate tectonics" is none.
   */
  function numberOf(text: StudyText, option: string): "plural" | "singular" {
    const lower = option.toLowerCase();
    const term = text.terms.find((candidate) =>
      [candidate.display, candidate.pluralDisplay, optionForm(candidate, false)].some((form) => form?.toLowerCase() === lower),
    );
    expect(term).toBeDefined();
    return term && writtenInPlural(term, option) ? "plural" : "singular";
  }

  it("offers distractors in the answer's number, so no option stands out by its ending", async () => {
    for (const note of [lectureNote(), mediaLectureNote(), twoTopicNote(), asMediaPocketsphinx(twoTopicNote())]) {
      const text = await analyseNotes([note]);
      const multipleChoice = (await quizzes(note)).filter((question) => question.type === "multiple_choice");
      const plural = multipleChoice.filter((question) => numberOf(text, question.correctAnswer) === "plural");
      // e.g. "Oxygen picks up the electrons together with _____": protons / enzymes / electrons / …, no longer "matrix".
      if (note.noteId.startsWith("note-respiration")) expect(plural.length).toBeGreaterThan(0);
      for (const question of multipleChoice) {
        const answer = numberOf(text, question.correctAnswer);
        expect(question.options.map((option) => numberOf(text, option))).toEqual(question.options.map(() => answer));
      }
    }
  });

  it("swaps a term for one of the same number in false statements", async () => {
    for (const note of [lectureNote(), mediaLectureNote()]) {
      const text = await analyseNotes([note]);
      const falseItems = (await quizzes(note)).filter((question) => question.type === "true_false" && question.correctAnswer === "False");
      for (const question of falseItems) {
        const [, swappedIn, original] = FALSE_EXPLANATION.exec(question.explanation) ?? [];
        const originalTerm = text.terms.find((term) => term.pattern.test(original)) as KeyTerm;
        const originalNumber = writtenInPlural(originalTerm, original) ? "plural" : "singular";
        expect(numberOf(text, swappedIn)).toBe(originalNumber);
      }
    }
  });

  it("gives an everyday term the text says only in the plural a regular singular for a singular blank", async () => {
    const text = await analyseNotes([
      spokenNote("atoms", [
        "Glucose has six carbon atoms and pyruvate has three carbon atoms.",
        "Pyruvate oxidation removes one of the carbon atoms as carbon dioxide.",
        "The Krebs cycle releases the other carbon atoms as carbon dioxide too.",
        "Oxygen accepts the electrons at the end of the electron transport chain.",
        "The electron transport chain pumps protons into the intermembrane space.",
        "Glycolysis splits glucose in the cytoplasm and makes a little ATP.",
      ]),
    ]);
    const carbonAtoms = termOf(text, "carbon atom");
    expect(carbonAtoms.display).toBe("carbon atoms");
    expect(optionForm(carbonAtoms, false)).toBe("carbon atom");
    expect(optionForm(carbonAtoms, true)).toBe("carbon atoms");
    // A lower-case name in -s stays as said; "-ics" is no plural.
    const krebs = (await analyseNotes([mediaLectureNote()])).terms.find((term) => term.display === "krebs") as KeyTerm;
    expect(optionForm(krebs, false)).toBe("krebs");
    const tectonics = (await analyseNotes([twoTopicNote()])).terms.find((term) => term.key === "plate tectonic") as KeyTerm;
    expect(optionForm(tectonics, false)).toBe("plate tectonics");
  });
});
