import type { EventEnvelope } from "@study/events/envelope";
import type { DocumentListQuery, DocumentRepository, ProcessingResult, StoredChunk } from "../../src/application/ports/document-repository.port";
import type { Document } from "../../src/domain/document";

const withoutText = (document: Document): Document => ({ ...document, extractedText: null, pages: [] });
const later = (stored: Date) => new Date(Math.max(Date.now(), stored.getTime() + 1));

/**
 * The repository port over a Map. `outbox` keeps the events each write was given, in order, as the Prisma adapter
 * stores them in the same transaction as the change; `chunks` the chunks stored per document.
 */
export class InMemoryDocumentRepository implements DocumentRepository {
  readonly outbox: EventEnvelope[] = [];
  readonly chunks = new Map<string, StoredChunk[]>();
  readonly attempts = new Map<string, number>();
  private readonly rows = new Map<string, Document>();

  get(documentId: string): Document | undefined {
    return this.rows.get(documentId);
  }

  async insert(document: Document, events: EventEnvelope[], chunks: StoredChunk[] = []): Promise<void> {
    this.rows.set(document.id, { ...document });
    this.chunks.set(document.id, chunks);
    this.outbox.push(...events);
  }

  async announce(events: EventEnvelope[]): Promise<void> {
    this.outbox.push(...events);
  }

  async findOwned(userId: string, courseId: string, documentId: string): Promise<Document | null> {
    const row = this.rows.get(documentId);
    return row && row.userId === userId && row.courseId === courseId ? { ...row } : null;
  }

  async findOwnedAnyCourse(userId: string, documentId: string): Promise<Document | null> {
    const row = this.rows.get(documentId);
    return row && row.userId === userId ? { ...row } : null;
  }

  async findOwnedWithoutText(userId: string, documentId: string): Promise<Document | null> {
    const row = this.rows.get(documentId);
    return row && row.userId === userId ? { ...row, extractedText: null, pages: [] } : null;
  }

  async findEarliestWithContentHash(userId: string, contentHash: string): Promise<Pick<Document, "id"> | null> {
    const matching = [...this.rows.values()].filter((row) => row.userId === userId && row.contentHash === contentHash);
    matching.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
    return matching[0] ? { id: matching[0].id } : null;
  }

  async listOwned(userId: string, query: DocumentListQuery): Promise<{ documents: Document[]; total: number }> {
    const matching = [...this.rows.values()]
      .filter((row) => row.userId === userId && row.courseId === query.courseId && (!query.documentType || row.documentType === query.documentType))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
    return { documents: matching.slice(query.offset, query.offset + query.limit).map(withoutText), total: matching.length };
  }

  async deleteOwned(userId: string, courseId: string, documentId: string, events: (deleted: Document) => EventEnvelope[]): Promise<Document | null> {
    const row = await this.findOwned(userId, courseId, documentId);
    if (!row) return null;
    this.rows.delete(documentId);
    this.chunks.delete(documentId);
    this.outbox.push(...events(withoutText(row)));
    return withoutText(row);
  }

  async deleteCourse(userId: string, courseId: string, events: (deleted: Document) => EventEnvelope[]): Promise<Document[]> {
    const deleted = [...this.rows.values()].filter((row) => row.userId === userId && row.courseId === courseId).map(withoutText);
    for (const document of deleted) {
      this.rows.delete(document.id);
      this.outbox.push(...events(document));
    }
    return deleted;
  }

  async startProcessing(documentId: string): Promise<{ document: Document; attempts: number } | null> {
    const row = this.rows.get(documentId);
    if (!row || (row.status !== "PENDING" && row.status !== "PROCESSING")) return null;
    const attempts = (this.attempts.get(documentId) ?? 0) + 1;
    this.attempts.set(documentId, attempts);
    const started = { ...row, status: "PROCESSING" as const, updatedAt: later(row.updatedAt) };
    this.rows.set(documentId, started);
    return { document: { ...started }, attempts };
  }

  async complete(documentId: string, result: ProcessingResult, chunks: StoredChunk[], events: (saved: Document) => EventEnvelope[]) {
    const row = this.rows.get(documentId);
    if (row?.status !== "PROCESSING") return null;
    const saved: Document = { ...row, ...result, status: "COMPLETED", failureReason: null, updatedAt: later(row.updatedAt) };
    this.rows.set(documentId, saved);
    this.chunks.set(documentId, chunks);
    this.outbox.push(...events(saved));
    return { ...saved };
  }

  async fail(documentId: string, reason: string, events: (saved: Document) => EventEnvelope[]) {
    const row = this.rows.get(documentId);
    if (!row || (row.status !== "PENDING" && row.status !== "PROCESSING")) return null;
    const saved: Document = { ...row, status: "FAILED", failureReason: reason, updatedAt: later(row.updatedAt) };
    this.rows.set(documentId, saved);
    this.outbox.push(...events(saved));
    return { ...saved };
  }

  async listPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<Document[]> {
    return [...this.rows.values()]
      .filter((row) => (!query.userId || row.userId === query.userId) && (query.afterId === null || row.id > query.afterId))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, query.limit);
  }
}
