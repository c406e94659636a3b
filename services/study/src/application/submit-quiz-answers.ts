import { newId } from "@study/grpc/ids";
import { scoreQuiz, type Quiz, type QuizAttempt, type QuizResponse } from "../domain/quiz";
import type { QuizAttemptRepository } from "./ports/study-repositories.port";
import type { MaterialCatalog } from "./read-material";

/** Scores answers to one of the user's quizzes and keeps the attempt for their history. */
export class SubmitQuizAnswers {
  constructor(
    private readonly quizzes: MaterialCatalog<Quiz>,
    private readonly attempts: QuizAttemptRepository,
  ) {}

  async execute(userId: string, quizId: string, responses: QuizResponse[]): Promise<QuizAttempt> {
    const quiz = await this.quizzes.get(userId, quizId);
    const attempt: QuizAttempt = {
      id: newId(),
      quizId: quiz.id,
      userId,
      submittedAt: new Date(),
      ...scoreQuiz(quiz.questions, responses),
    };
    await this.attempts.insert(attempt);
    return attempt;
  }
}

export class ListQuizAttempts {
  constructor(
    private readonly quizzes: MaterialCatalog<Quiz>,
    private readonly attempts: QuizAttemptRepository,
  ) {}

  async execute(userId: string, quizId: string): Promise<QuizAttempt[]> {
    await this.quizzes.get(userId, quizId);
    return this.attempts.listForQuiz(userId, quizId);
  }
}
