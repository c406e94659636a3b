import { enqueueEvents, type EventEnvelope } from "@study/events";
import { isUuid } from "@study/platform";
import type { MaterialFilter, QuizAttemptRepository, QuizRepository } from "../../application/ports/study-repositories.port";
import type { Question, Quiz, QuizAttempt } from "../../domain/quiz";
import type { QuestionType } from "../../domain/study-material";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import { z } from "zod";
import { materialWhere, NEWEST_FIRST, pageAfterWhere, originColumns, sourceColumns, sourceFromColumns } from "./material-rows";

/** The JSON column `quiz_attempt.results`, checked when read back (a column holds whatever was ever written to it). */
const storedResults = z.array(
  z.object({
    questionId: z.string(),
    userAnswer: z.string().nullable(),
    correctAnswer: z.string(),
    isCorrect: z.boolean(),
    explanation: z.string().nullable(),
  }),
);

export const withQuestions = { questions: { orderBy: { order: "asc" as const } } };
type QuizRow = Prisma.QuizGetPayload<{ include: typeof withQuestions }>;

export const quizFromRow = ({ questions, ...row }: QuizRow): Quiz => ({
  ...row,
  questions: questions.map((question): Question => ({
    id: question.id,
    quizId: question.quizId,
    question: question.question,
    type: question.type as QuestionType,
    options: question.options,
    correctAnswer: question.correctAnswer,
    explanation: question.explanation,
    order: question.order,
    source: sourceFromColumns(question),
  })),
});

export class PrismaQuizRepository implements QuizRepository, QuizAttemptRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async findByFingerprint(userId: string, courseId: string, contentHash: string): Promise<Quiz | null> {
    const row = await this.prisma.quiz.findUnique({
      where: { userId_courseId_contentHash: { userId, courseId, contentHash } },
      include: withQuestions,
    });
    return row && quizFromRow(row);
  }

  async insertUnlessDuplicate(quiz: Quiz, events: EventEnvelope[]): Promise<{ material: Quiz; created: boolean }> {
    const created = await this.prisma.$transaction(async (tx) => {
      const { count } = await tx.quiz.createMany({ data: [originColumns(quiz)], skipDuplicates: true });
      if (count === 0) return false;
      await tx.question.createMany({
        data: quiz.questions.map((question) => ({
          id: question.id,
          quizId: quiz.id,
          question: question.question,
          type: question.type,
          options: question.options,
          correctAnswer: question.correctAnswer,
          explanation: question.explanation,
          order: question.order,
          ...sourceColumns(question.source),
        })),
      });
      await enqueueEvents(tx, events);
      return true;
    });
    if (created) return { material: quiz, created };
    const existing = await this.findByFingerprint(quiz.userId, quiz.courseId, quiz.contentHash);
    if (!existing) throw new Error("quiz insert conflicted with a row that is gone");
    return { material: existing, created };
  }

  async findOwned(userId: string, id: string): Promise<Quiz | null> {
    if (!isUuid(id)) return null;
    const row = await this.prisma.quiz.findFirst({ where: { id, userId }, include: withQuestions });
    return row && quizFromRow(row);
  }

  async listOwned(userId: string, filter: MaterialFilter, limit?: number): Promise<Quiz[]> {
    const rows = await this.prisma.quiz.findMany({
      where: materialWhere(userId, filter),
      include: withQuestions,
      orderBy: NEWEST_FIRST,
      take: limit,
    });
    return rows.map(quizFromRow);
  }

  async deleteOwned(userId: string, id: string, events: (quiz: Quiz) => EventEnvelope[]): Promise<boolean> {
    if (!isUuid(id)) return false;
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.quiz.findFirst({ where: { id, userId }, include: withQuestions });
      if (!row) return false;
      await tx.quiz.delete({ where: { id } });
      await enqueueEvents(tx, events(quizFromRow(row)));
      return true;
    });
  }

  async listPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<Quiz[]> {
    const rows = await this.prisma.quiz.findMany({ where: pageAfterWhere(query), include: withQuestions, orderBy: { id: "asc" }, take: query.limit });
    return rows.map(quizFromRow);
  }

  async deleteCourse(userId: string, courseId: string, events: (quiz: Quiz) => EventEnvelope[]): Promise<Quiz[]> {
    return this.prisma.$transaction(async (tx) => {
      const rows = await tx.quiz.findMany({ where: { userId, courseId }, include: withQuestions });
      if (rows.length === 0) return [];
      await tx.quiz.deleteMany({ where: { id: { in: rows.map((row) => row.id) } } });
      const quizzes = rows.map(quizFromRow);
      await enqueueEvents(tx, quizzes.flatMap(events));
      return quizzes;
    });
  }

  async insert(attempt: QuizAttempt): Promise<void> {
    await this.prisma.quizAttempt.create({
      data: {
        id: attempt.id,
        quizId: attempt.quizId,
        userId: attempt.userId,
        totalQuestions: attempt.totalQuestions,
        correctAnswers: attempt.correctAnswers,
        percentage: attempt.percentage,
        results: attempt.results.map((result) => ({ ...result })),
        submittedAt: attempt.submittedAt,
      },
    });
  }

  async listForQuiz(userId: string, quizId: string): Promise<QuizAttempt[]> {
    const rows = await this.prisma.quizAttempt.findMany({
      where: { userId, quizId },
      orderBy: [{ submittedAt: "desc" }, { id: "asc" }],
    });
    return rows.map((row) => ({ ...row, results: storedResults.parse(row.results) }));
  }
}
