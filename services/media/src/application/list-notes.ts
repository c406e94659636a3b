import { AppError } from "@study/platform/errors";
import { isUuid, requireUserId } from "@study/platform/ids";
import type { NotePage, NoteRepository } from "./ports/note-repository.port";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** Checks a page request (limit 0 or absent: the default). */
export function pageOf(query: { limit?: number; offset?: number }): { limit: number; offset: number } {
  const limit = query.limit || DEFAULT_PAGE_SIZE;
  const offset = query.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw AppError.validation("Invalid limit", [{ field: "limit", message: `must be between 1 and ${MAX_PAGE_SIZE}` }]);
  }
  if (!Number.isInteger(offset) || offset < 0) throw AppError.validation("Invalid offset", [{ field: "offset", message: "must be 0 or more" }]);
  return { limit, offset };
}

export class ListNotes {
  constructor(private readonly notes: NoteRepository) {}

  /** The user's notes newest first, optionally of one course (an id that is no course id matches none). */
  async execute(
    userId: string,
    query: { courseId?: string; limit?: number; offset?: number },
  ): Promise<NotePage & { limit: number; offset: number }> {
    requireUserId(userId);
    const page = pageOf(query);
    if (query.courseId !== undefined && !isUuid(query.courseId)) return { notes: [], total: 0, ...page };
    return { ...(await this.notes.listOwned(userId, { courseId: query.courseId, ...page })), ...page };
  }
}
