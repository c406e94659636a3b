import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import type { EventEnvelope } from "@study/events/envelope";
import type { MaterialFilter, MaterialRepository } from "./ports/study-repositories.port";

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

  list(userId: string, filter: MaterialFilter): Promise<M[]> {
    return this.repository.listOwned(requireUserId(userId), filter);
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
