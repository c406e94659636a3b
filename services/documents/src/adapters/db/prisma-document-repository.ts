import { enqueueEvents, type EventEnvelope } from "@study/events";
import { z } from "zod";
import type { DocumentListQuery, DocumentRepository, ProcessingResult, StoredChunk } from "../../application/ports/document-repository.port";
import type { Document, PageSpan } from "../../domain/document";
import type { DocumentFormat, DocumentType } from "../../domain/document-format";
import { Prisma, type PrismaClient, type Document as DocumentRow } from "../../generated/prisma/client";

type Tx = Prisma.TransactionClient;

/** Chunks are written in batches (one INSERT each): a 600-page book has thousands. */
const CHUNK_BATCH = 500;

/** A row as the domain sees it (the database only holds values the domain wrote). */
export function toDocument(row: DocumentRow): Document {
  const { fileSize, format, documentType, pages, attempts: _attempts, ...rest } = row;
  return {
    ...rest,
    fileSize: Number(fileSize),
    format: format as DocumentFormat,
    documentType: documentType as DocumentType,
    pages: PAGE_SPANS.parse(pages),
  };
}

/** The `pages` column: what processing stored (validated on the way out, so a bad row fails loudly). */
const PAGE_SPANS = z.array(z.object({ number: z.number().int(), startOffset: z.number().int(), endOffset: z.number().int(), ocr: z.boolean() }));

const pagesJson = (pages: PageSpan[]): Prisma.InputJsonValue =>
  pages.map(({ number, startOffset, endOffset, ocr }) => ({ number, startOffset, endOffset, ocr }));

const LIST_SELECT = { extractedText: false, pages: false } as const;

function documentData(document: Document) {
  const { pages, fileSize, ...rest } = document;
  return { ...rest, fileSize: BigInt(fileSize), pages: pagesJson(pages) };
}

async function insertChunks(tx: Tx, document: Pick<Document, "id" | "userId" | "courseId">, chunks: StoredChunk[]): Promise<void> {
  for (let start = 0; start < chunks.length; start += CHUNK_BATCH) {
    const rows = chunks.slice(start, start + CHUNK_BATCH).map(
      (chunk) =>
        Prisma.sql`(${document.id}::uuid, ${document.userId}, ${document.courseId}, ${chunk.page}, ${chunk.position}, ${chunk.text},
          ${chunk.startOffset}, ${chunk.endOffset}, ${chunk.embedding}::real[], ${chunk.embeddingModel})`,
    );
    await tx.$executeRaw`
      INSERT INTO document_chunk (document_id, user_id, course_id, page, position, text, start_offset, end_offset, embedding, embedding_model)
      VALUES ${Prisma.join(rows)}`;
  }
}

export class PrismaDocumentRepository implements DocumentRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async insert(document: Document, events: EventEnvelope[], chunks: StoredChunk[] = []): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.document.create({ data: documentData(document) });
      await insertChunks(tx, document, chunks);
      await enqueueEvents(tx, events);
    });
  }

  async announce(events: EventEnvelope[]): Promise<void> {
    await this.prisma.$transaction(async (tx) => enqueueEvents(tx, events));
  }

  async findOwned(userId: string, courseId: string, documentId: string): Promise<Document | null> {
    const row = await this.prisma.document.findFirst({ where: { id: documentId, userId, courseId } });
    return row ? toDocument(row) : null;
  }

  async findOwnedAnyCourse(userId: string, documentId: string): Promise<Document | null> {
    const row = await this.prisma.document.findFirst({ where: { id: documentId, userId } });
    return row ? toDocument(row) : null;
  }

  async findOwnedWithoutText(userId: string, documentId: string): Promise<Document | null> {
    const row = await this.prisma.document.findFirst({ where: { id: documentId, userId }, omit: LIST_SELECT });
    return row ? toDocument({ ...row, extractedText: null, pages: [] }) : null;
  }

  async findEarliestWithContentHash(userId: string, contentHash: string): Promise<Pick<Document, "id"> | null> {
    return this.prisma.document.findFirst({ where: { userId, contentHash }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: { id: true } });
  }

  async listOwned(userId: string, query: DocumentListQuery): Promise<{ documents: Document[]; total: number }> {
    const where = { userId, courseId: query.courseId, ...(query.documentType ? { documentType: query.documentType } : {}) };
    const [rows, total] = await Promise.all([
      this.prisma.document.findMany({
        where,
        omit: LIST_SELECT,
        orderBy: [{ createdAt: "desc" }, { id: "desc" }],
        take: query.limit,
        skip: query.offset,
      }),
      this.prisma.document.count({ where }),
    ]);
    return { documents: rows.map((row) => toDocument({ ...row, extractedText: null, pages: [] })), total };
  }

  async deleteOwned(userId: string, courseId: string, documentId: string, events: (deleted: Document) => EventEnvelope[]): Promise<Document | null> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.document.findFirst({ where: { id: documentId, userId, courseId }, omit: LIST_SELECT });
      if (!row) return null;
      const { count } = await tx.document.deleteMany({ where: { id: documentId, userId } });
      if (count === 0) return null;
      const deleted = toDocument({ ...row, extractedText: null, pages: [] });
      await enqueueEvents(tx, events(deleted));
      return deleted;
    });
  }

  async deleteCourse(userId: string, courseId: string, events: (deleted: Document) => EventEnvelope[]): Promise<Document[]> {
    return this.prisma.$transaction(async (tx) => {
      const rows = await tx.document.findMany({ where: { userId, courseId }, omit: LIST_SELECT });
      if (rows.length === 0) return [];
      await tx.document.deleteMany({ where: { userId, courseId } });
      const deleted = rows.map((row) => toDocument({ ...row, extractedText: null, pages: [] }));
      await enqueueEvents(
        tx,
        deleted.flatMap((document) => events(document)),
      );
      return deleted;
    });
  }

  async startProcessing(documentId: string): Promise<{ document: Document; attempts: number } | null> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      UPDATE document SET status = 'PROCESSING', attempts = attempts + 1, updated_at = greatest(now(), updated_at + interval '1 millisecond')
      WHERE id = ${documentId}::uuid AND status IN ('PENDING', 'PROCESSING')
      RETURNING id`;
    if (rows.length === 0) return null;
    const row = await this.prisma.document.findUnique({ where: { id: documentId } });
    return row ? { document: toDocument(row), attempts: row.attempts } : null;
  }

  async complete(
    documentId: string,
    result: ProcessingResult,
    chunks: StoredChunk[],
    events: (saved: Document) => EventEnvelope[],
  ): Promise<Document | null> {
    return this.prisma.$transaction(
      async (tx) => {
        const [stored] = await tx.$queryRaw<{ updatedAt: Date }[]>`
          SELECT updated_at AS "updatedAt" FROM document WHERE id = ${documentId}::uuid AND status = 'PROCESSING' FOR UPDATE`;
        if (!stored) return null;
        const row = await tx.document.update({
          where: { id: documentId },
          data: {
            status: "COMPLETED",
            failureReason: null,
            extractedText: result.extractedText,
            pages: pagesJson(result.pages),
            author: result.author,
            pageCount: result.pageCount,
            wordCount: result.wordCount,
            calendarEventsCreated: result.calendarEventsCreated,
            updatedAt: nextVersion(stored.updatedAt),
          },
        });
        const saved = toDocument(row);
        // A redelivered message that completed before (then crashed before its ack) left no chunks: status guards it.
        await tx.documentChunk.deleteMany({ where: { documentId } });
        await insertChunks(tx, saved, chunks);
        await enqueueEvents(tx, events(saved));
        return saved;
      },
      { timeout: 60_000 },
    );
  }

  async fail(documentId: string, reason: string, events: (saved: Document) => EventEnvelope[]): Promise<Document | null> {
    return this.prisma.$transaction(async (tx) => {
      const [stored] = await tx.$queryRaw<{ updatedAt: Date }[]>`
        SELECT updated_at AS "updatedAt" FROM document WHERE id = ${documentId}::uuid AND status IN ('PENDING', 'PROCESSING') FOR UPDATE`;
      if (!stored) return null;
      const row = await tx.document.update({
        where: { id: documentId },
        data: { status: "FAILED", failureReason: reason, updatedAt: nextVersion(stored.updatedAt) },
      });
      const saved = toDocument(row);
      await enqueueEvents(tx, events(saved));
      return saved;
    });
  }

  async listPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<Document[]> {
    const rows = await this.prisma.document.findMany({
      where: { ...(query.userId ? { userId: query.userId } : {}), ...(query.afterId ? { id: { gt: query.afterId } } : {}) },
      orderBy: { id: "asc" },
      take: query.limit,
    });
    return rows.map(toDocument);
  }
}

/** A version after the stored one even when the clock is behind it (search applies only newer versions). */
function nextVersion(stored: Date): Date {
  const now = new Date();
  return now > stored ? now : new Date(stored.getTime() + 1);
}
