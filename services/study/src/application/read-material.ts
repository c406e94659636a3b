import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import type { EventEnvelope } from "@study/events/envelope";
import type { MaterialFilter, MaterialRepository } from "./ports/study-repositories.port";

/** The most a list may be limited to; without a limit a list has all of the user's material. */
export const MAX_LIST_LIMIT = 100;

/**
 * Reading and deleting work the same for every kind of material: owner-scoped, and another user's id is
 * simply not found.
 */
export class MaterialCatalog<M> {
  constructor(
    private readonly repository: MaterialRepository<M>,
    private readonly what: string,
    private readonly deletedEvent: (material: M) => EventEnvelope,
  ) {}

  /** Newest first; the newest `limit` (1 to MAX_LIST_LIMIT) when given, else all of them. */
  list(userId: string, filter: MaterialFilter, limit?: number): Promise<M[]> {
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT)) {
      throw AppError.validation("Invalid query", [{ field: "limit", message: `must be an integer from 1 to ${MAX_LIST_LIMIT}` }]);
    }
    return this.repository.listOwned(requireUserId(userId), filter, limit);
  }

  async get(userId: string, id: string): Promise<M> {
    const material = await this.repository.findOwned(requireUserId(userId), id);
    if (!material) throw AppError.notFound(this.what);
    return material;
  }

  async delete(userId: string, id: string): Promise<void> {
    const deleted = await this.repository.deleteOwned(requireUserId(userId), id, (material) => [this.deletedEvent(material)]);
    if (!deleted) throw AppError.notFound(this.what);
  }
}
