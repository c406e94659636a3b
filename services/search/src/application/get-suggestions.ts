import type { Logger } from "@study/platform";
import { requireUserId } from "@study/platform/ids";
import { parseSuggestionsQuery } from "../domain/search-query";
import { failingAs } from "./index-failure";
import type { SearchIndex } from "./ports/search-index.port";

/** How many suggestions GET /api/search/suggestions offers. */
export const SUGGESTIONS_LIMIT = 10;

/**
 * GET /api/search/suggestions: titles and terms of the user's own records completing or resembling the query
 * (QUERY_TOO_SHORT under 2 characters); an index failure is SUGGESTIONS_FAILED.
 */
export class GetSuggestions {
  constructor(
    private readonly index: SearchIndex,
    private readonly logger: Logger,
  ) {}

  async execute(userId: string, rawQuery: string | undefined): Promise<string[]> {
    requireUserId(userId);
    const prefix = parseSuggestionsQuery(rawQuery);
    return failingAs(this.logger, "SUGGESTIONS_FAILED", "Loading suggestions failed", { userId }, () =>
      this.index.suggest(userId, prefix, SUGGESTIONS_LIMIT),
    );
  }
}
