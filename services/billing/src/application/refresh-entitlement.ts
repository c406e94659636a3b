import { resolveEntitlement, type Entitlement } from "../domain/entitlement";
import { entitlementChanged } from "./billing-events";
import type { BillingTransaction } from "./ports/billing-store.port";

/**
 * Computes the user's entitlement again inside the transaction that changed one of its sources, stores it and,
 * when the answer changed, publishes entitlement.changed with the same commit.
 */
export async function refreshEntitlement(tx: BillingTransaction, userId: string, now: Date): Promise<Entitlement> {
  const sources = await tx.loadEntitlementSources(userId);
  const { entitlement, recheckAt } = resolveEntitlement(sources, now);
  const before = await tx.saveEntitlement(userId, entitlement, recheckAt);
  if (!before || !sameEntitlement(before, entitlement)) await tx.enqueue([entitlementChanged(userId, entitlement)]);
  return entitlement;
}

const sameEntitlement = (a: Entitlement, b: Entitlement) =>
  a.isPro === b.isPro && a.source === b.source && a.plan === b.plan && a.inGrace === b.inGrace && a.expiresAt?.getTime() === b.expiresAt?.getTime();
