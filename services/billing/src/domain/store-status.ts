/**
 * The status of an App Store subscription after a server notification (v2). The spec leaves the mapping open;
 * this table is the one written in services/billing/README.md. Types that say nothing about access (a renewal preference changed,
 * a price increase announced, a consumption request, a test) keep the status the transaction itself gives:
 * active until its expiry, expired after it; a revoked transaction (refund, family sharing removed) is expired.
 */
export type StoreStatus = "active" | "in_grace" | "expired";

export interface StoreTransactionFacts {
  expiresAt: Date | null;
  revoked: boolean;
}

const ALWAYS_EXPIRED = new Set(["EXPIRED", "GRACE_PERIOD_EXPIRED", "REFUND", "REVOKE"]);
const ACCESS_GIVEN = new Set(["SUBSCRIBED", "DID_RENEW", "OFFER_REDEEMED", "RENEWAL_EXTENDED", "REFUND_REVERSED"]);

export function storeStatusAfter(notificationType: string, subtype: string | undefined, transaction: StoreTransactionFacts, now: Date): StoreStatus {
  if (transaction.revoked || ALWAYS_EXPIRED.has(notificationType)) return "expired";
  if (notificationType === "DID_FAIL_TO_RENEW") return subtype === "GRACE_PERIOD" ? "in_grace" : "expired";
  const current = transaction.expiresAt === null || transaction.expiresAt.getTime() > now.getTime();
  if (ACCESS_GIVEN.has(notificationType)) return current ? "active" : "expired";
  return statusOfTransaction(transaction, now);
}

/** A transaction the app confirms: active until it expires. */
export function statusOfTransaction(transaction: StoreTransactionFacts, now: Date): StoreStatus {
  if (transaction.revoked) return "expired";
  return transaction.expiresAt === null || transaction.expiresAt.getTime() > now.getTime() ? "active" : "expired";
}
