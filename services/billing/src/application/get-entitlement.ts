import type { Clock } from "@study/platform/clock";
import { requireUserId } from "@study/platform/ids";
import { NO_ENTITLEMENT, type Entitlement } from "../domain/entitlement";
import type { BillingStore } from "./ports/billing-store.port";
import { refreshEntitlement } from "./refresh-entitlement";

/**
 * The user's entitlement: the stored answer (one primary-key read), computed again only when time alone has
 * changed it since (a period or grace period ended, a referral extension took over).
 */
export class GetEntitlement {
  constructor(
    private readonly store: BillingStore,
    private readonly clock: Clock,
  ) {}

  async execute(userId: string): Promise<Entitlement> {
    requireUserId(userId);
    const stored = await this.store.findEntitlement(userId);
    if (!stored) return NO_ENTITLEMENT;
    const now = this.clock.now();
    if (!stored.recheckAt || stored.recheckAt > now) return stored.entitlement;
    return this.store.transaction((tx) => refreshEntitlement(tx, userId, now));
  }
}
