import { newId } from "@study/grpc/ids";
import { enqueueEvents, type EventEnvelope } from "@study/events";
import { isUuid } from "@study/platform";
import type { FlashcardSetRepository, MaterialFilter } from "../../application/ports/study-repositories.port";
import type { CardSchedule, ReviewLogEntry, ReviewRating } from "../../domain/card-schedule";
import type { Flashcard, FlashcardSet } from "../../domain/flashcard-set";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import { materialWhere, NEWEST_FIRST, pageAfterWhere, originColumns, sourceColumns, sourceFromColumns } from "./material-rows";

export const withCards = { flashcards: { orderBy: { order: "asc" as const } } };
type SetRow = Prisma.FlashcardSetGetPayload<{ include: typeof withCards }>;
type CardRow = SetRow["flashcards"][number];

function scheduleFromRow(row: CardRow): CardSchedule {
  return {
    due: row.due,
    stability: row.stability,
    difficulty: row.difficulty,
    elapsedDays: row.elapsedDays,
    scheduledDays: row.scheduledDays,
    learningSteps: row.learningSteps,
    reps: row.reps,
    lapses: row.lapses,
    state: row.state,
    lastReview: row.lastReview,
  };
}

const cardFromRow = (row: CardRow): Flashcard => ({
  id: row.id,
  flashcardSetId: row.flashcardSetId,
  front: row.front,
  back: row.back,
  order: row.order,
  source: sourceFromColumns(row),
  schedule: scheduleFromRow(row),
});

export const setFromRow = ({ flashcards, ...row }: SetRow): FlashcardSet => ({ ...row, flashcards: flashcards.map(cardFromRow) });

const scheduleColumns = (schedule: CardSchedule) => ({ ...schedule });

const ratingColumn = (rating: ReviewRating) => rating.toUpperCase() as "AGAIN" | "HARD" | "GOOD" | "EASY";

export class PrismaFlashcardSetRepository implements FlashcardSetRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async findByFingerprint(userId: string, courseId: string, contentHash: string): Promise<FlashcardSet | null> {
    const row = await this.prisma.flashcardSet.findUnique({
      where: { userId_courseId_contentHash: { userId, courseId, contentHash } },
      include: withCards,
    });
    return row && setFromRow(row);
  }

  async insertUnlessDuplicate(set: FlashcardSet, events: EventEnvelope[]): Promise<{ material: FlashcardSet; created: boolean }> {
    const created = await this.prisma.$transaction(async (tx) => {
      // ON CONFLICT DO NOTHING: a concurrent identical request that committed first wins, without an error.
      const { count } = await tx.flashcardSet.createMany({ data: [originColumns(set)], skipDuplicates: true });
      if (count === 0) return false;
      await tx.flashcard.createMany({
        data: set.flashcards.map((card) => ({
          id: card.id,
          flashcardSetId: set.id,
          userId: set.userId,
          front: card.front,
          back: card.back,
          order: card.order,
          ...sourceColumns(card.source),
          ...scheduleColumns(card.schedule),
        })),
      });
      await enqueueEvents(tx, events);
      return true;
    });
    if (created) return { material: set, created };
    const existing = await this.findByFingerprint(set.userId, set.courseId, set.contentHash);
    if (!existing) throw new Error("flashcard set insert conflicted with a row that is gone");
    return { material: existing, created };
  }

  async findOwned(userId: string, id: string): Promise<FlashcardSet | null> {
    if (!isUuid(id)) return null;
    const row = await this.prisma.flashcardSet.findFirst({ where: { id, userId }, include: withCards });
    return row && setFromRow(row);
  }

  async listOwned(userId: string, filter: MaterialFilter, limit?: number): Promise<FlashcardSet[]> {
    if (filter.flashcardSetId && !isUuid(filter.flashcardSetId)) return [];
    const rows = await this.prisma.flashcardSet.findMany({
      where: { ...materialWhere(userId, filter), ...(filter.flashcardSetId ? { id: filter.flashcardSetId } : {}) },
      include: withCards,
      orderBy: NEWEST_FIRST,
      take: limit,
    });
    return rows.map(setFromRow);
  }

  async deleteOwned(userId: string, id: string, events: (set: FlashcardSet) => EventEnvelope[]): Promise<boolean> {
    if (!isUuid(id)) return false;
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.flashcardSet.findFirst({ where: { id, userId }, include: withCards });
      if (!row) return false;
      await tx.flashcardSet.delete({ where: { id } });
      await enqueueEvents(tx, events(setFromRow(row)));
      return true;
    });
  }

  async listPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<FlashcardSet[]> {
    const rows = await this.prisma.flashcardSet.findMany({
      where: pageAfterWhere(query),
      include: withCards,
      orderBy: { id: "asc" },
      take: query.limit,
    });
    return rows.map(setFromRow);
  }

  async deleteCourse(userId: string, courseId: string, events: (set: FlashcardSet) => EventEnvelope[]): Promise<FlashcardSet[]> {
    return this.prisma.$transaction(async (tx) => {
      const rows = await tx.flashcardSet.findMany({ where: { userId, courseId }, include: withCards });
      if (rows.length === 0) return [];
      await tx.flashcardSet.deleteMany({ where: { id: { in: rows.map((row) => row.id) } } });
      const sets = rows.map(setFromRow);
      await enqueueEvents(tx, sets.flatMap(events));
      return sets;
    });
  }

  async findCard(userId: string, flashcardSetId: string, flashcardId: string): Promise<Flashcard | null> {
    if (!isUuid(flashcardSetId) || !isUuid(flashcardId)) return null;
    const row = await this.prisma.flashcard.findFirst({ where: { id: flashcardId, flashcardSetId, userId } });
    return row && cardFromRow(row);
  }

  async recordReview(userId: string, flashcardId: string, schedule: CardSchedule, log: ReviewLogEntry): Promise<Flashcard> {
    const [row] = await this.prisma.$transaction([
      this.prisma.flashcard.update({ where: { id: flashcardId, userId }, data: scheduleColumns(schedule) }),
      this.prisma.cardReview.create({
        data: {
          id: newId(),
          flashcardId,
          userId,
          rating: ratingColumn(log.rating),
          state: log.state,
          due: log.due,
          stability: log.stability,
          difficulty: log.difficulty,
          elapsedDays: log.elapsedDays,
          scheduledDays: log.scheduledDays,
          reviewedAt: log.reviewedAt,
        },
      }),
    ]);
    return cardFromRow(row);
  }

  async listDue(userId: string, now: Date, filter: { courseId?: string; flashcardSetId?: string; limit: number }) {
    if (filter.flashcardSetId && !isUuid(filter.flashcardSetId)) return { cards: [], totalDue: 0 };
    const where = {
      userId,
      due: { lte: now },
      ...(filter.flashcardSetId ? { flashcardSetId: filter.flashcardSetId } : {}),
      ...(filter.courseId ? { flashcardSet: { courseId: filter.courseId } } : {}),
    };
    const [rows, totalDue] = await Promise.all([
      this.prisma.flashcard.findMany({
        where,
        include: { flashcardSet: { select: { title: true, courseId: true } } },
        orderBy: [{ due: "asc" }, { id: "asc" }],
        take: filter.limit,
      }),
      this.prisma.flashcard.count({ where }),
    ]);
    return {
      cards: rows.map(({ flashcardSet, ...row }) => ({
        flashcard: cardFromRow(row),
        courseId: flashcardSet.courseId,
        flashcardSetTitle: flashcardSet.title,
      })),
      totalDue,
    };
  }
}
