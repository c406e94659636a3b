import { AppError } from "@study/platform";
import { scoreQuiz, type Question } from "../../src/domain/quiz";

const question = (id: string, order: number, correctAnswer: string, options: string[]): Question => ({
  id,
  quizId: "quiz",
  question: `Question ${id}?`,
  type: options.length === 2 ? "true_false" : "multiple_choice",
  options,
  correctAnswer,
  explanation: `Because ${correctAnswer}.`,
  order,
  source: null,
});

const questions = [
  question("q2", 1, "True", ["True", "False"]),
  question("q1", 0, "Mitochondria", ["Nucleus", "Mitochondria", "Ribosome", "Golgi apparatus"]),
  question("q3", 2, "Golgi apparatus", ["Nucleus", "Mitochondria", "Ribosome", "Golgi apparatus"]),
];

describe("scoring a quiz", () => {
  it("compares answers trimmed and case-insensitively, counts unanswered questions as wrong, and keeps quiz order", () => {
    const score = scoreQuiz(questions, [
      { questionId: "q1", answer: "  mitochondria " },
      { questionId: "q2", answer: "false" },
    ]);
    expect(score).toEqual({
      totalQuestions: 3,
      correctAnswers: 1,
      percentage: 33.33,
      results: [
        { questionId: "q1", userAnswer: "  mitochondria ", correctAnswer: "Mitochondria", isCorrect: true, explanation: "Because Mitochondria." },
        { questionId: "q2", userAnswer: "false", correctAnswer: "True", isCorrect: false, explanation: "Because True." },
        { questionId: "q3", userAnswer: null, correctAnswer: "Golgi apparatus", isCorrect: false, explanation: "Because Golgi apparatus." },
      ],
    });
  });

  it("collapses inner white space", () => {
    expect(scoreQuiz(questions, [{ questionId: "q3", answer: "GOLGI   apparatus" }]).correctAnswers).toBe(1);
  });

  it("gives 100 % for all correct", () => {
    const score = scoreQuiz(questions, [
      { questionId: "q1", answer: "Mitochondria" },
      { questionId: "q2", answer: "TRUE" },
      { questionId: "q3", answer: "golgi apparatus" },
    ]);
    expect(score).toMatchObject({ correctAnswers: 3, percentage: 100 });
  });

  it("refuses answers to unknown questions and repeated answers, naming each", () => {
    expect.assertions(3);
    try {
      scoreQuiz(questions, [
        { questionId: "q1", answer: "Nucleus" },
        { questionId: "nope", answer: "x" },
        { questionId: "q1", answer: "Ribosome" },
      ]);
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("VALIDATION_ERROR");
      expect((error as AppError).details).toEqual([
        { field: "responses[1].questionId", message: "is not a question of this quiz" },
        { field: "responses[2].questionId", message: "is answered more than once" },
      ]);
    }
  });
});
