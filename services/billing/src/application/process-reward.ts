import type { Clock } from "@study/platform/clock";
import { requireUserId } from "@study/platform/ids";
import { AppError } from "@study/platform/errors";
import { storeExtensionWindow } from "../domain/entitlement";
import { applyMovement, rewardCredited } from "../domain/ledger";
import { formatCents } from "@study/platform/money";
import { FREE_MONTH_DAYS } from "../domain/money";
import { assertProcessable, referralAfterReward, type Reward, type RewardType } from "../domain/referral";
import { rewardProcessed } from "./billing-events";
import type { BillingStore, BillingTransaction, UserSubscriptions } from "./ports/billing-store.port";
import type { PaymentProcessor } from "./ports/payment-processor.port";
import { refreshEntitlement } from "./refresh-entitlement";

export interface ProcessedReward {
  reward: Reward;
  message: string;
  accountCreditCents: number;
}

/** Processor statuses of a subscription a free month can extend. */
const EXTENDABLE = new Set(["active", "trialing"]);

/**
 * The caller processes one of their PENDING rewards. CASH: the amount is credited (a ledger entry) in the same
 * transaction as the reward's completion. FREE_MONTH: the active subscription is extended by 30 days without a
 * charge — a processor subscription at the processor (its next charge moves; the idempotency key names the reward,
 * so a retry extends once), a store subscription by a local extension the entitlement honours after the store's
 * own expiry (the store cannot be told to skip a charge). NO_SUBSCRIPTION without an active subscription.
 */
export class ProcessReward {
  constructor(
    private readonly store: BillingStore,
    private readonly processor: PaymentProcessor,
    private readonly clock: Clock,
  ) {}

  async execute(userId: string, rewardId: string, type: RewardType): Promise<ProcessedReward> {
    requireUserId(userId);
    const reward = assertProcessable(await this.store.findReward(rewardId), userId, type, this.clock.now());
    if (reward.rewardType === "CASH") return this.creditCash(userId, reward.id, type);
    return this.giveFreeMonth(userId, reward.id, type);
  }

  private creditCash(userId: string, rewardId: string, type: RewardType): Promise<ProcessedReward> {
    return this.store.transaction(async (tx) => {
      const now = this.clock.now();
      const reward = assertProcessable(await tx.findRewardForUpdate(rewardId), userId, type, now);
      const account = await tx.lockAccount(userId);
      if (!account) throw AppError.internal(`No billing account for ${userId}`);
      const amount = reward.cashAmountCents ?? 0;
      const movement = rewardCredited(amount);
      const after = applyMovement(account, movement);
      await tx.recordMovement(userId, movement, after, { rewardId: reward.id });
      const completed = await this.complete(tx, reward, null, now);
      await tx.enqueue([rewardProcessed(completed, after.creditCents, null)]);
      return { reward: completed, message: `${formatCents(amount)} was added to your account credit`, accountCreditCents: after.creditCents };
    });
  }

  private async giveFreeMonth(userId: string, rewardId: string, type: RewardType): Promise<ProcessedReward> {
    const sources = await this.store.transaction((tx) => tx.loadEntitlementSources(userId));
    const now = this.clock.now();
    const processorSubscription = sources.subscriptions.find(
      (subscription) => EXTENDABLE.has(subscription.status) && (!subscription.periodEnd || subscription.periodEnd > now),
    );
    if (processorSubscription) {
      const currentEnd = [processorSubscription.periodEnd, processorSubscription.trialEnd, now].reduce<Date>(
        (end, instant) => (instant && instant > end ? instant : end),
        now,
      );
      const until = new Date(currentEnd.getTime() + FREE_MONTH_DAYS * 86_400_000);
      await this.processor.extendSubscription({ subscriptionId: processorSubscription.processorSubscriptionId, until }, `reward-${rewardId}`);
      return this.completeFreeMonth(
        userId,
        rewardId,
        type,
        `stripe:${processorSubscription.processorSubscriptionId} until ${until.toISOString()}`,
        until,
      );
    }
    if (activeStoreSubscription(sources, now)) return this.extendStoreAccess(userId, rewardId, type);
    throw new AppError("precondition", "NO_SUBSCRIPTION", "A free month needs an active subscription: subscribe first, then claim it");
  }

  private completeFreeMonth(userId: string, rewardId: string, type: RewardType, extension: string, until: Date): Promise<ProcessedReward> {
    return this.store.transaction(async (tx) => {
      const now = this.clock.now();
      const reward = assertProcessable(await tx.findRewardForUpdate(rewardId), userId, type, now);
      const completed = await this.complete(tx, reward, extension, now);
      const account = await tx.findAccount(userId);
      await tx.enqueue([rewardProcessed(completed, account?.creditCents ?? 0, until)]);
      return {
        reward: completed,
        message: `Your subscription was extended by ${FREE_MONTH_DAYS} days, until ${until.toISOString().slice(0, 10)}`,
        accountCreditCents: account?.creditCents ?? 0,
      };
    });
  }

  private extendStoreAccess(userId: string, rewardId: string, type: RewardType): Promise<ProcessedReward> {
    return this.store.transaction(async (tx) => {
      const now = this.clock.now();
      const reward = assertProcessable(await tx.findRewardForUpdate(rewardId), userId, type, now);
      // Read again under the reward's lock: another free month processed meanwhile moves this one's window.
      const sources = await tx.loadEntitlementSources(userId);
      const store = activeStoreSubscription(sources, now);
      if (!store) throw new AppError("precondition", "NO_SUBSCRIPTION", "A free month needs an active subscription: subscribe first, then claim it");
      const window = storeExtensionWindow(store, sources.extensions, FREE_MONTH_DAYS, now);
      await tx.insertAccessExtension(userId, reward.id, window);
      await refreshEntitlement(tx, userId, now);
      const completed = await this.complete(tx, reward, `store:${store.originalTransactionId} until ${window.endsAt.toISOString()}`, now);
      const account = await tx.findAccount(userId);
      await tx.enqueue([rewardProcessed(completed, account?.creditCents ?? 0, window.endsAt)]);
      return {
        reward: completed,
        message: `You have ${FREE_MONTH_DAYS} more days of Pro, until ${window.endsAt.toISOString().slice(0, 10)}`,
        accountCreditCents: account?.creditCents ?? 0,
      };
    });
  }

  /** The reward COMPLETED, and its referral COMPLETED once both rewards are. */
  private async complete(tx: BillingTransaction, reward: Reward, extension: string | null, now: Date): Promise<Reward> {
    const completed: Reward = { ...reward, status: "COMPLETED", claimedAt: now, subscriptionExtension: extension };
    await tx.updateReward(completed);
    const referral = await tx.findReferralForUpdate(reward.referralId);
    if (referral) await tx.updateReferral(referralAfterReward(referral, await tx.listRewardsOfReferral(referral.id), completed, now));
    return completed;
  }
}

function activeStoreSubscription(sources: UserSubscriptions, now: Date) {
  return sources.storeSubscriptions.find(
    (store) => store.status !== "expired" && (!store.expiresAt || store.expiresAt > now || store.status === "in_grace"),
  );
}
