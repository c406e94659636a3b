/**
 * The ordering rule of the index: what search holds of a record (its ledger entry) decides whether an incoming
 * version of it is applied. Events may arrive twice, late or out of order; the owner moves `updatedAt` forward
 * with every change, and a deleted record's tombstone is final (ids are never reused).
 */
export interface AppliedVersion {
  updatedAt: Date;
  /** Set once the record was deleted. */
  deletedAt?: Date | null;
}

/**
 * Whether a version updated at `incoming` replaces what is held: yes for a record never seen, and for one not
 * tombstoned whose applied version is not newer. An equal version is applied again (a reindex rewrites the
 * index with the same version; writing it twice changes nothing).
 */
export function shouldApply(held: AppliedVersion | null | undefined, incoming: Date): boolean {
  if (!held) return true;
  if (held.deletedAt) return false;
  return incoming.getTime() >= held.updatedAt.getTime();
}
