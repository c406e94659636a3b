import { newId } from "@study/grpc/ids";
import type { IndexedSource, PassageOwner, PassageStore } from "../../application/ports/material-sources.port";
import type { SourceType } from "../../domain/passage";
import type { PassageDraft } from "../../domain/passage-builder";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";

/** Advisory lock class of the per-source write lock (the second key is the source id's hash). */
const SOURCE_LOCK_CLASS = 7301;
/** The passage's title column. */
const TITLE_CHARS = 255;

/**
 * Serialises the writes of one source: without it, two replacements running at once could each delete only the
 * rows their statement saw and both insert, leaving the source's passages twice.
 */
async function lockSource(tx: Prisma.TransactionClient, sourceType: SourceType, sourceId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SOURCE_LOCK_CLASS}::int, hashtext(${`${sourceType}:${sourceId}`}))`;
}

/** The write side of the service's passage index (PrismaPassageIndex reads it). */
export class PrismaPassageStore implements PassageStore {
  constructor(private readonly prisma: PrismaClient) {}

  async replaceSourcePassages(
    owner: PassageOwner,
    sourceType: SourceType,
    sourceId: string,
    drafts: readonly PassageDraft[],
    version: Date | null,
  ): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      await lockSource(tx, sourceType, sourceId);
      const applied = await tx.indexedSource.findUnique({ where: { sourceType_sourceId: { sourceType, sourceId } } });
      if (applied?.forgotten) return false;
      if (applied?.version && version && version.getTime() < applied.version.getTime()) return false;
      await tx.indexedSource.upsert({
        where: { sourceType_sourceId: { sourceType, sourceId } },
        create: { sourceType, sourceId, version },
        update: { version },
      });
      await tx.passage.deleteMany({ where: { sourceType, sourceId } });
      if (drafts.length === 0) return true;
      await tx.passage.createMany({
        data: drafts.map((draft) => ({
          id: newId(),
          userId: owner.userId,
          courseId: owner.courseId,
          sourceType,
          sourceId,
          title: draft.title.slice(0, TITLE_CHARS),
          kind: draft.kind,
          position: draft.position,
          startTime: draft.startTime,
          page: draft.page,
          text: draft.text,
        })),
      });
      return true;
    });
  }

  deleteSource(sourceType: SourceType, sourceId: string): Promise<number> {
    return this.prisma.$transaction(async (tx) => {
      await lockSource(tx, sourceType, sourceId);
      await tx.indexedSource.upsert({
        where: { sourceType_sourceId: { sourceType, sourceId } },
        create: { sourceType, sourceId, forgotten: true },
        update: { forgotten: true },
      });
      const { count } = await tx.passage.deleteMany({ where: { sourceType, sourceId } });
      return count;
    });
  }

  deleteCourse(userId: string, courseId: string): Promise<{ passages: number; sessions: number }> {
    // Messages go with their sessions (ON DELETE CASCADE).
    return this.prisma.$transaction(async (tx) => {
      const passages = await tx.passage.deleteMany({ where: { userId, courseId } });
      const sessions = await tx.chatSession.deleteMany({ where: { userId, courseId } });
      return { passages: passages.count, sessions: sessions.count };
    });
  }

  async sourcesIndexedBefore(query: { userId?: string; before: Date }): Promise<IndexedSource[]> {
    const rows = await this.prisma.passage.findMany({
      where: { ...(query.userId === undefined ? {} : { userId: query.userId }), indexedAt: { lt: query.before } },
      distinct: ["sourceType", "sourceId"],
      select: { sourceType: true, sourceId: true },
      orderBy: [{ sourceType: "asc" }, { sourceId: "asc" }],
    });
    return rows.map((row) => ({ sourceType: row.sourceType === "document" ? "document" : "note", sourceId: row.sourceId }));
  }
}
