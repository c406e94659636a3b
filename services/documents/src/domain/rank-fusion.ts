/** The constant of reciprocal-rank fusion (Cormack, Clarke & Büttcher, 2009): damps the weight of the very top ranks. */
export const RRF_K = 60;

export interface FusedItem {
  id: string;
  /** Σ 1 / (k + rank) over the lists holding the id (rank from 1). */
  score: number;
  /** The id's rank in each list (1-based), undefined where the list does not hold it. */
  ranks: (number | undefined)[];
}

/**
 * Reciprocal-rank fusion of ranked lists of ids (best first): each id scores Σ 1 / (k + rank) over the lists
 * that hold it, so an id ranked well by several lists beats one ranked first by a single list. Only an id's first
 * occurrence in a list counts. Ties are broken by the best single rank, then by first appearance (list order).
 */
export function reciprocalRankFusion(rankings: readonly (readonly string[])[], k: number = RRF_K): FusedItem[] {
  const items = new Map<string, FusedItem & { order: number }>();
  rankings.forEach((ranking, list) => {
    const seen = new Set<string>();
    ranking.forEach((id) => {
      if (seen.has(id)) return;
      seen.add(id);
      const rank = seen.size;
      let item = items.get(id);
      if (!item) {
        item = { id, score: 0, ranks: rankings.map(() => undefined), order: items.size };
        items.set(id, item);
      }
      item.score += 1 / (k + rank);
      item.ranks[list] = rank;
    });
  });
  const bestRank = (item: FusedItem) => Math.min(...item.ranks.map((rank) => rank ?? Number.POSITIVE_INFINITY));
  return [...items.values()]
    .sort((a, b) => b.score - a.score || bestRank(a) - bestRank(b) || a.order - b.order)
    .map(({ id, score, ranks }) => ({ id, score, ranks }));
}

/** The highest fused score possible with `lists` lists (an id ranked first everywhere): divides a score into 0-1. */
export function maxFusedScore(lists: number, k: number = RRF_K): number {
  return lists / (k + 1);
}
