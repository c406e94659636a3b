import { AppError, type FieldViolation } from "@study/platform/errors";
import type { MaterialOrigin } from "./flashcard-set";
import type { QuestionType, SourceReference } from "./study-material";

export interface Question {
  id: string;
  quizId: string;
  question: string;
  type: QuestionType;
  options: string[];
  correctAnswer: string;
  explanation: string | null;
  order: number;
  source: SourceReference | null;
}

export interface Quiz extends MaterialOrigin {
  questions: Question[];
}

export interface QuizResponse {
  questionId: string;
  answer: string;
}

export interface QuestionResult {
  questionId: string;
  /** null when the question was not answered. */
  userAnswer: string | null;
  correctAnswer: string;
  isCorrect: boolean;
  explanation: string | null;
}

export interface QuizScore {
  totalQuestions: number;
  correctAnswers: number;
  /** correctAnswers / totalQuestions × 100, two decimals. */
  percentage: number;
  /** One per question of the quiz, in quiz order. */
  results: QuestionResult[];
}

export interface QuizAttempt extends QuizScore {
  id: string;
  quizId: string;
  userId: string;
  submittedAt: Date;
}

/** Answers are compared trimmed, case-insensitively, with inner runs of white space collapsed. */
const normalizeAnswer = (answer: string) => answer.trim().replace(/\s+/g, " ").toLocaleLowerCase("en");

/**
 * Scores answers against the quiz. Every question counts, answered or not; an answer to a question the quiz
 * does not have, or two answers to one question, make the whole submission invalid (nothing is scored).
 */
export function scoreQuiz(questions: readonly Question[], responses: readonly QuizResponse[]): QuizScore {
  const known = new Set(questions.map((question) => question.id));
  const answers = new Map<string, string>();
  const problems: FieldViolation[] = [];
  responses.forEach((response, index) => {
    if (!known.has(response.questionId)) {
      problems.push({ field: `responses[${index}].questionId`, message: "is not a question of this quiz" });
    } else if (answers.has(response.questionId)) {
      problems.push({ field: `responses[${index}].questionId`, message: "is answered more than once" });
    } else {
      answers.set(response.questionId, response.answer);
    }
  });
  if (problems.length) throw AppError.validation("The responses do not match the quiz", problems);

  const results = [...questions]
    .sort((a, b) => a.order - b.order)
    .map((question): QuestionResult => {
      const userAnswer = answers.get(question.id) ?? null;
      return {
        questionId: question.id,
        userAnswer,
        correctAnswer: question.correctAnswer,
        isCorrect: userAnswer !== null && normalizeAnswer(userAnswer) === normalizeAnswer(question.correctAnswer),
        explanation: question.explanation,
      };
    });
  const correctAnswers = results.filter((result) => result.isCorrect).length;
  const totalQuestions = results.length;
  const percentage = totalQuestions === 0 ? 0 : Math.round((correctAnswers / totalQuestions) * 10_000) / 100;
  return { totalQuestions, correctAnswers, percentage, results };
}
