// Issue #29: a definition of a person asks "Who is …?", not "What is …?".
import { OfflineStudyMaterialGenerator } from "../../../../src/adapters/generation/offline/offline-study-material-generator";
import type { SourceNote } from "../../../../src/domain/study-material";
import { generationInput } from "./helpers";

const generator = new OfflineStudyMaterialGenerator();

/** A lecture on the novel that defines its people ("Elinor Dashwood is …") and a concept ("Sensibility is …"). */
const novel: SourceNote = {
  noteId: "novel",
  title: "Sense and Sensibility",
  transcript:
    "Sense and Sensibility is a novel by Jane Austen, published in 1811. " +
    "Elinor Dashwood is the elder daughter, a prudent young woman who hides her own feelings out of duty to others. " +
    "Marianne Dashwood is her younger sister, a passionate girl who shows every emotion openly. " +
    "Edward Ferrars is a modest young man who becomes attached to Elinor at Norland Park. " +
    "Colonel Brandon is a quiet man of thirty-five who loves Marianne without hope. " +
    "Sensibility is a readiness to feel strong emotions and to show them. " +
    "The family moves to Barton Cottage in Devonshire after the death of Mr Dashwood. " +
    "Willoughby rescues Marianne after she twists her ankle in the rain, and she falls in love with him. " +
    "Later Willoughby abandons her for a rich heiress, and Marianne falls gravely ill at Cleveland.",
  segments: [],
  userNotes: [],
};

describe("questions about people (#29)", () => {
  it("asks who a defined person is, and still what a defined concept is", async () => {
    const set = await generator.generateFlashcards({ ...generationInput([novel]), cardCount: 20 });
    const fronts = set.cards.map((card) => card.front);
    expect(fronts).toEqual(expect.arrayContaining([expect.stringMatching(/^Who is (Elinor|Marianne) Dashwood\?$/)]));
    expect(fronts.filter((front) => /^What (is|are) (Elinor|Marianne|Edward|Colonel|Jane)\b/.test(front))).toEqual([]);
    expect(fronts).toEqual(
      expect.arrayContaining(["Who is Elinor Dashwood?", "Who is Edward Ferrars?", "Who is Colonel Brandon?", "What is Sensibility?"]),
    );
  });

  it("asks who a reversed definition describes (HARD): a person is no 'term'", async () => {
    const set = await generator.generateFlashcards({ ...generationInput([novel], "HARD"), cardCount: 20 });
    const reversed = set.cards.filter((card) => /^(Who is this|Which term is this)\?/.test(card.front));
    expect(reversed.find((card) => card.back.startsWith("Edward Ferrars."))?.front).toMatch(/^Who is this\? /);
    expect(reversed.filter((card) => /^(Elinor|Marianne|Edward|Colonel) /.test(card.back) && card.front.startsWith("Which term"))).toEqual([]);
    expect(reversed.find((card) => card.back.startsWith("Sensibility."))?.front).toMatch(/^Which term is this\? /);
  });

  it("asks who is described in a quiz about a person's definition", async () => {
    const quiz = await generator.generateQuiz({ ...generationInput([novel]), questionCount: 20 });
    const questions = quiz.questions.map((question) => question.question);
    expect(
      questions.filter((question) => question.startsWith("Which term matches this definition") && /woman|man|girl|daughter|sister/.test(question)),
    ).toEqual([]);
    expect(questions).toEqual(expect.arrayContaining([expect.stringMatching(/^Who is described here: "/)]));
  });
});
