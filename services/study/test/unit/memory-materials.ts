import type { EventEnvelope } from "@study/events/envelope";
import type { MaterialRepository } from "../../src/application/ports/study-repositories.port";
import type { MaterialOrigin } from "../../src/domain/flashcard-set";

/** The material port over an array: what is stored and the events each insert was given. */
export class MemoryMaterials<M extends MaterialOrigin> implements MaterialRepository<M> {
  readonly rows: M[] = [];
  readonly outbox: EventEnvelope[] = [];
  async findByFingerprint(userId: string, courseId: string, contentHash: string) {
    return this.rows.find((row) => row.userId === userId && row.courseId === courseId && row.contentHash === contentHash) ?? null;
  }
  async insertUnlessDuplicate(material: M, events: EventEnvelope[]) {
    this.rows.push(material);
    this.outbox.push(...events);
    return { material, created: true };
  }
  async findOwned(userId: string, id: string) {
    return this.rows.find((row) => row.userId === userId && row.id === id) ?? null;
  }
  async listOwned(userId: string) {
    return this.rows.filter((row) => row.userId === userId);
  }
  async deleteOwned() {
    return false;
  }
  async deleteCourse() {
    return [];
  }
  async listPageAfter(query: { userId?: string; afterId: string | null; limit: number }) {
    return [...this.rows]
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .filter((row) => (query.userId === undefined || row.userId === query.userId) && (query.afterId === null || row.id > query.afterId))
      .slice(0, query.limit);
  }
}
