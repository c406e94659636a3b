/**
 * One answer across the payment processor, the App Store and referral extensions: may the user use Pro, through
 * which source, until when. Computed when any of them changes and stored, so that reading it is one primary-key
 * read; `recheckAt` is the next instant at which the answer changes by time alone (a period ends, a grace period
 * ends, a referral extension takes over), when the stored answer must be computed again.
 */
export type EntitlementSource = "stripe" | "store" | "referral" | "none";

export interface Entitlement {
  isPro: boolean;
  source: EntitlementSource;
  plan: string | null;
  expiresAt: Date | null;
  inGrace: boolean;
}

export interface ProcessorSubscriptionState {
  plan: string;
  status: string;
  periodEnd: Date | null;
  trialEnd: Date | null;
}

export interface StoreSubscriptionState {
  productId: string;
  status: "active" | "in_grace" | "expired";
  expiresAt: Date | null;
  gracePeriodExpiresAt: Date | null;
}

export interface AccessExtensionState {
  startsAt: Date;
  endsAt: Date;
}

export interface EntitlementSources {
  subscriptions: readonly ProcessorSubscriptionState[];
  storeSubscriptions: readonly StoreSubscriptionState[];
  extensions: readonly AccessExtensionState[];
}

export const NO_ENTITLEMENT: Entitlement = { isPro: false, source: "none", plan: null, expiresAt: null, inGrace: false };

/** Processor statuses that give access: paid or trialing, and past_due while the processor retries the charge. */
const PROCESSOR_ACCESS = new Set(["active", "trialing", "past_due"]);

interface Coverage {
  entitlement: Entitlement;
  /** When this coverage stops (null: no known end). */
  until: Date | null;
}

function coverages(sources: EntitlementSources, now: Date): Coverage[] {
  const at = now.getTime();
  const covering: Coverage[] = [];
  for (const subscription of sources.subscriptions) {
    if (!PROCESSOR_ACCESS.has(subscription.status)) continue;
    const until = latest(subscription.periodEnd, subscription.status === "trialing" ? subscription.trialEnd : null);
    if (until && until.getTime() <= at) continue;
    const inGrace = subscription.status === "past_due";
    covering.push({ entitlement: { isPro: true, source: "stripe", plan: subscription.plan, expiresAt: until, inGrace }, until });
  }
  for (const store of sources.storeSubscriptions) {
    if (store.status === "expired") continue;
    const inGrace = store.status === "in_grace";
    const until = inGrace ? latest(store.gracePeriodExpiresAt, store.expiresAt) : store.expiresAt;
    if (until && until.getTime() <= at) continue;
    covering.push({ entitlement: { isPro: true, source: "store", plan: store.productId, expiresAt: until, inGrace }, until });
  }
  for (const extension of sources.extensions) {
    if (extension.startsAt.getTime() > at || extension.endsAt.getTime() <= at) continue;
    covering.push({
      entitlement: { isPro: true, source: "referral", plan: null, expiresAt: extension.endsAt, inGrace: false },
      until: extension.endsAt,
    });
  }
  return covering;
}

/** The entitlement at `now` and when it must be computed again. */
export function resolveEntitlement(sources: EntitlementSources, now: Date): { entitlement: Entitlement; recheckAt: Date | null } {
  const covering = coverages(sources, now);
  // A paid source outside grace first, then the one that lasts longest (no end = forever).
  covering.sort((a, b) => Number(a.entitlement.inGrace) - Number(b.entitlement.inGrace) || endTime(b.until) - endTime(a.until));
  const chosen = covering.at(0);
  const recheckAt = nextChange(sources, now);
  return { entitlement: chosen ? chosen.entitlement : NO_ENTITLEMENT, recheckAt };
}

/** The next instant after `now` at which some source starts or stops covering. */
function nextChange(sources: EntitlementSources, now: Date): Date | null {
  const instants: (Date | null)[] = [
    ...sources.subscriptions.flatMap((s) => [s.periodEnd, s.trialEnd]),
    ...sources.storeSubscriptions.flatMap((s) => [s.expiresAt, s.gracePeriodExpiresAt]),
    ...sources.extensions.flatMap((e) => [e.startsAt, e.endsAt]),
  ];
  const future = instants.filter((instant): instant is Date => instant !== null && instant.getTime() > now.getTime());
  if (future.length === 0) return null;
  return new Date(Math.min(...future.map((instant) => instant.getTime())));
}

function latest(a: Date | null, b: Date | null): Date | null {
  if (!a) return b;
  if (!b) return a;
  return a.getTime() >= b.getTime() ? a : b;
}

const endTime = (until: Date | null) => (until ? until.getTime() : Number.POSITIVE_INFINITY);

/**
 * Where a FREE_MONTH reward's 30 days go for a store subscription (which the store cannot extend): they start when
 * the user's current coverage by the store and earlier extensions ends, so that free time is never spent while
 * the user is paying.
 */
export function storeExtensionWindow(
  store: StoreSubscriptionState,
  extensions: readonly AccessExtensionState[],
  days: number,
  now: Date,
): AccessExtensionState {
  const coveredUntil = [store.expiresAt, ...extensions.map((extension) => extension.endsAt)].reduce<Date>(
    (end, instant) => (instant && instant.getTime() > end.getTime() ? instant : end),
    now,
  );
  return { startsAt: coveredUntil, endsAt: new Date(coveredUntil.getTime() + days * 86_400_000) };
}
