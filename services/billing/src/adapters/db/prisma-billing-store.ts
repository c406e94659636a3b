import { enqueueEvents, type EventEnvelope } from "@study/events";
import { newId } from "@study/grpc/ids";
import { AppError } from "@study/platform/errors";
import { isUuid } from "@study/platform/ids";
import type {
  BillingAccount,
  BillingStore,
  BillingTransaction,
  NewAccount,
  StoreSubscription,
  Subscription,
  UserSubscriptions,
} from "../../application/ports/billing-store.port";
import type { ProcessorSubscriptionSnapshot, VerifiedProcessorEvent } from "../../application/ports/processor-events.port";
import type { AccessExtensionState, Entitlement, EntitlementSource } from "../../domain/entitlement";
import type { Balances, LedgerMovement } from "../../domain/ledger";
import type { PendingReason, Referral, ReferralCode, ReferralStatus, Reward, RewardStatus, RewardType } from "../../domain/referral";
import type { PayerIdentity } from "../../domain/referral-eligibility";
import type { StoreStatus } from "../../domain/store-status";
import type { Withdrawal, WithdrawalStatus } from "../../domain/withdrawal";
import { Prisma, type PrismaClient } from "../../generated/prisma/client";

type Tx = Prisma.TransactionClient;

/** Attempts of a transaction that lost a race (a deadlock, or a unique key taken meanwhile). */
const TRANSACTION_ATTEMPTS = 3;

/** The billing tables through Prisma; balances change only inside transactions that lock the account row. */
export class PrismaBillingStore implements BillingStore {
  constructor(private readonly prisma: PrismaClient) {}

  async transaction<T>(work: (tx: BillingTransaction) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        // Withdrawals queue on the account row's lock: allow them time to wait their turn.
        return await this.prisma.$transaction((tx) => work(new PrismaBillingTransaction(tx)), { maxWait: 10_000, timeout: 30_000 });
      } catch (error) {
        // A row inserted meanwhile by a racing transaction (the same subscription confirmed twice, two webhooks of a
        // new subscription): run the work again, which now finds that row and applies its rules to it.
        if (attempt >= TRANSACTION_ATTEMPTS || !(isDeadlock(error) || isUniqueViolation(error))) throw error;
      }
    }
  }

  async ensureAccount(account: NewAccount, newCode: () => string): Promise<BillingAccount> {
    await this.prisma.billingAccount.createMany({ data: [account], skipDuplicates: true });
    for (let attempt = 1; ; attempt++) {
      if (await this.prisma.referralCode.findFirst({ where: { userId: account.userId, isActive: true } })) break;
      try {
        await this.prisma.referralCode.create({ data: { id: newId(), code: newCode(), userId: account.userId } });
        break;
      } catch (error) {
        // The drawn code is taken (1 in 10^12 per code held), or a redelivery made the user's code meanwhile.
        if (!isUniqueViolation(error) || attempt >= 5) throw error;
      }
    }
    const stored = await this.findAccount(account.userId);
    if (!stored) throw new Error(`The billing account of ${account.userId} vanished`);
    return stored;
  }

  async findAccount(userId: string): Promise<BillingAccount | null> {
    return this.prisma.billingAccount.findUnique({ where: { userId } });
  }

  async setProcessorCustomer(userId: string, processorCustomerId: string): Promise<void> {
    await this.prisma.billingAccount.update({ where: { userId }, data: { processorCustomerId } });
  }

  async findActiveCode(userId: string): Promise<ReferralCode | null> {
    return this.prisma.referralCode.findFirst({ where: { userId, isActive: true } });
  }

  async findReward(rewardId: string): Promise<Reward | null> {
    // The column is a UUID: any other text names no reward (PostgreSQL would refuse the comparison itself).
    if (!isUuid(rewardId)) return null;
    const row = await this.prisma.referralReward.findUnique({ where: { id: rewardId } });
    return row && toReward(row);
  }

  async findWithdrawal(withdrawalId: string): Promise<Withdrawal | null> {
    const row = await this.prisma.withdrawal.findUnique({ where: { id: withdrawalId } });
    return row && toWithdrawal(row);
  }

  async findWithdrawalByPayment(processorPaymentId: string): Promise<Withdrawal | null> {
    const row = await this.prisma.withdrawal.findUnique({ where: { processorPaymentId } });
    return row && toWithdrawal(row);
  }

  async saveProcessorEvent(event: VerifiedProcessorEvent, events: readonly EventEnvelope[]): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.processorEvent.createMany({
        data: [{ id: event.id, type: event.type, payload: event.body as Prisma.InputJsonValue, createdAt: event.createdAt }],
        skipDuplicates: true,
      });
      if (count === 0) return false;
      await enqueueEvents(tx, [...events]);
      return true;
    });
  }

  async findProcessorEvent(eventId: string): Promise<(VerifiedProcessorEvent & { processedAt: Date | null }) | null> {
    const row = await this.prisma.processorEvent.findUnique({ where: { id: eventId } });
    return row && { id: row.id, type: row.type, createdAt: row.createdAt, body: row.payload, processedAt: row.processedAt };
  }

  async markProcessorEventProcessed(eventId: string, at: Date): Promise<void> {
    await this.prisma.processorEvent.update({ where: { id: eventId }, data: { processedAt: at } });
  }

  async findNewestSubscription(userId: string): Promise<Subscription | null> {
    const row = await this.prisma.subscription.findFirst({ where: { userId }, orderBy: [{ createdAt: "desc" }, { id: "asc" }] });
    if (!row) return null;
    const { lastEventAt: _lastEventAt, cardFingerprint: _cardFingerprint, ...subscription } = row;
    return subscription;
  }

  async hasEverSubscribed(userId: string): Promise<boolean> {
    const [processor, store] = await Promise.all([
      this.prisma.subscription.count({ where: { userId }, take: 1 }),
      this.prisma.storeSubscription.count({ where: { userId }, take: 1 }),
    ]);
    return processor + store > 0;
  }

  findAccountByCustomerId(processorCustomerId: string): Promise<BillingAccount | null> {
    return this.prisma.billingAccount.findUnique({ where: { processorCustomerId } });
  }

  async findEntitlement(userId: string): Promise<{ entitlement: Entitlement; recheckAt: Date | null } | null> {
    const row = await this.prisma.entitlement.findUnique({ where: { userId } });
    return row && { entitlement: toEntitlement(row), recheckAt: row.recheckAt };
  }

  async attachPayment(withdrawalId: string, processorPaymentId: string): Promise<boolean> {
    const { count } = await this.prisma.withdrawal.updateMany({
      where: { id: withdrawalId, processorPaymentId: null },
      data: { processorPaymentId },
    });
    return count === 1;
  }
}

class PrismaBillingTransaction implements BillingTransaction {
  constructor(private readonly tx: Tx) {}

  async lockAccount(userId: string): Promise<BillingAccount | null> {
    const [row] = await this.tx.$queryRaw<BillingAccount[]>`
      SELECT user_id AS "userId", name, email, processor_customer_id AS "processorCustomerId",
             credit_cents AS "creditCents", reserved_cents AS "reservedCents", first_payment_at AS "firstPaymentAt"
      FROM billing_account WHERE user_id = ${userId} FOR UPDATE`;
    return row ?? null;
  }

  findAccount(userId: string): Promise<BillingAccount | null> {
    return this.tx.billingAccount.findUnique({ where: { userId } });
  }

  async recordMovement(userId: string, movement: LedgerMovement, after: Balances, refs: { rewardId?: string; withdrawalId?: string }): Promise<void> {
    await this.tx.ledgerEntry.create({
      data: {
        id: newId(),
        userId,
        kind: movement.kind,
        creditDeltaCents: movement.creditDeltaCents,
        reservedDeltaCents: movement.reservedDeltaCents,
        rewardId: refs.rewardId ?? null,
        withdrawalId: refs.withdrawalId ?? null,
      },
    });
    await this.tx.billingAccount.update({ where: { userId }, data: { creditCents: after.creditCents, reservedCents: after.reservedCents } });
  }

  async findCodeForUpdate(code: string): Promise<ReferralCode | null> {
    const [row] = await this.tx.$queryRaw<ReferralCode[]>`
      SELECT id, code, user_id AS "userId", is_active AS "isActive", usage_count AS "usageCount", max_usage AS "maxUsage",
             created_at AS "createdAt", updated_at AS "updatedAt"
      FROM referral_code WHERE code = ${code} FOR UPDATE`;
    return row ?? null;
  }

  async incrementCodeUsage(codeId: string): Promise<void> {
    await this.tx.referralCode.update({ where: { id: codeId }, data: { usageCount: { increment: 1 } } });
  }

  async findReferralOfRefereeForUpdate(refereeId: string): Promise<Referral | null> {
    const [row] = await this.tx.$queryRaw<{ id: string }[]>`SELECT id FROM referral WHERE referee_id = ${refereeId} FOR UPDATE`;
    return row ? this.findReferral(row.id) : null;
  }

  async findReferralForUpdate(referralId: string): Promise<Referral | null> {
    const [row] = await this.tx.$queryRaw<{ id: string }[]>`SELECT id FROM referral WHERE id = ${referralId}::uuid FOR UPDATE`;
    return row ? this.findReferral(row.id) : null;
  }

  private async findReferral(referralId: string): Promise<Referral | null> {
    const row = await this.tx.referral.findUnique({ where: { id: referralId } });
    return row && toReferral(row);
  }

  async insertReferral(referral: Referral): Promise<void> {
    try {
      await this.tx.referral.create({ data: referral });
    } catch (error) {
      // Two signups of one user racing (no referral row to lock yet): the unique referee decides, as the rule says.
      if (isUniqueViolation(error)) throw new AppError("precondition", "DUPLICATE_REFERRAL", "You have already signed up with a referral code");
      throw error;
    }
  }

  async updateReferral(referral: Referral): Promise<void> {
    const { id, ...changes } = referral;
    await this.tx.referral.update({ where: { id }, data: changes });
  }

  async countReferralsSince(referrerId: string, since: Date): Promise<number> {
    return this.tx.referral.count({ where: { referrerId, signupDate: { gte: since } } });
  }

  async countCashRewardsSince(referrerId: string, since: Date): Promise<number> {
    return this.tx.referralReward.count({ where: { userId: referrerId, rewardType: "CASH", createdAt: { gte: since } } });
  }

  async payerIdentity(userId: string): Promise<PayerIdentity> {
    const [account, subscriptions] = await Promise.all([
      this.tx.billingAccount.findUnique({ where: { userId }, select: { processorCustomerId: true } }),
      this.tx.subscription.findMany({ where: { userId }, select: { processorCustomerId: true, cardFingerprint: true } }),
    ]);
    const customerIds = new Set([account?.processorCustomerId, ...subscriptions.map((row) => row.processorCustomerId)]);
    const fingerprints = new Set(subscriptions.map((row) => row.cardFingerprint));
    return {
      customerIds: [...customerIds].filter((id): id is string => !!id),
      cardFingerprints: [...fingerprints].filter((fingerprint): fingerprint is string => !!fingerprint),
    };
  }

  async recordFirstPayment(userId: string, at: Date): Promise<void> {
    await this.tx.billingAccount.updateMany({
      where: { userId, OR: [{ firstPaymentAt: null }, { firstPaymentAt: { gt: at } }] },
      data: { firstPaymentAt: at },
    });
  }

  async listRewardsOfRefereeForUpdate(refereeId: string): Promise<Reward[]> {
    const rows = await this.tx.$queryRaw<{ id: string }[]>`
      SELECT w.id FROM referral_reward w JOIN referral r ON r.id = w.referral_id
      WHERE r.referee_id = ${refereeId} ORDER BY w.id FOR UPDATE OF w`;
    if (rows.length === 0) return [];
    const rewards = await this.tx.referralReward.findMany({ where: { id: { in: rows.map((row) => row.id) } }, orderBy: { id: "asc" } });
    return rewards.map(toReward);
  }

  async findExpiredPendingRewardsForUpdate(now: Date, limit: number): Promise<Reward[]> {
    const rows = await this.tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM referral_reward WHERE status = 'PENDING' AND expires_at <= ${now}
      ORDER BY expires_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED`;
    if (rows.length === 0) return [];
    const rewards = await this.tx.referralReward.findMany({ where: { id: { in: rows.map((row) => row.id) } }, orderBy: { id: "asc" } });
    return rewards.map(toReward);
  }

  async insertRewards(rewards: readonly Reward[]): Promise<void> {
    await this.tx.referralReward.createMany({ data: [...rewards] });
  }

  async findRewardForUpdate(rewardId: string): Promise<Reward | null> {
    if (!isUuid(rewardId)) return null;
    const [row] = await this.tx.$queryRaw<{ id: string }[]>`SELECT id FROM referral_reward WHERE id = ${rewardId}::uuid FOR UPDATE`;
    if (!row) return null;
    const reward = await this.tx.referralReward.findUnique({ where: { id: row.id } });
    return reward && toReward(reward);
  }

  async listRewardsOfReferral(referralId: string): Promise<Reward[]> {
    const rows = await this.tx.referralReward.findMany({ where: { referralId }, orderBy: { rewardType: "asc" } });
    return rows.map(toReward);
  }

  async updateReward(reward: Reward): Promise<void> {
    const { id, createdAt: _createdAt, ...changes } = reward;
    await this.tx.referralReward.update({ where: { id }, data: changes });
  }

  async insertWithdrawal(withdrawal: Withdrawal): Promise<void> {
    await this.tx.withdrawal.create({ data: withdrawal });
  }

  async findWithdrawalForUpdate(withdrawalId: string): Promise<Withdrawal | null> {
    const [row] = await this.tx.$queryRaw<{ id: string }[]>`SELECT id FROM withdrawal WHERE id = ${withdrawalId}::uuid FOR UPDATE`;
    if (!row) return null;
    const withdrawal = await this.tx.withdrawal.findUnique({ where: { id: row.id } });
    return withdrawal && toWithdrawal(withdrawal);
  }

  async updateWithdrawal(withdrawal: Withdrawal): Promise<void> {
    const { id, userId: _userId, requestedAt: _requestedAt, ...changes } = withdrawal;
    await this.tx.withdrawal.update({ where: { id }, data: changes });
  }

  async loadEntitlementSources(userId: string): Promise<UserSubscriptions> {
    const [subscriptions, storeSubscriptions, extensions] = await Promise.all([
      this.tx.subscription.findMany({ where: { userId }, orderBy: { createdAt: "desc" } }),
      this.tx.storeSubscription.findMany({ where: { userId }, orderBy: { createdAt: "desc" } }),
      this.tx.accessExtension.findMany({ where: { userId }, orderBy: { startsAt: "asc" } }),
    ]);
    return {
      subscriptions: subscriptions.map((row) => ({
        processorSubscriptionId: row.processorSubscriptionId,
        plan: row.plan,
        status: row.status,
        periodEnd: row.periodEnd,
        trialEnd: row.trialEnd,
      })),
      storeSubscriptions: storeSubscriptions.map((row) => ({
        originalTransactionId: row.originalTransactionId,
        productId: row.productId,
        status: row.status as StoreStatus,
        expiresAt: row.expiresAt,
        gracePeriodExpiresAt: row.gracePeriodExpiresAt,
      })),
      extensions: extensions.map((row) => ({ startsAt: row.startsAt, endsAt: row.endsAt })),
    };
  }

  async insertAccessExtension(userId: string, rewardId: string, extension: AccessExtensionState): Promise<void> {
    await this.tx.accessExtension.create({ data: { rewardId, userId, startsAt: extension.startsAt, endsAt: extension.endsAt } });
  }

  async saveEntitlement(userId: string, entitlement: Entitlement, recheckAt: Date | null): Promise<Entitlement | null> {
    const before = await this.tx.entitlement.findUnique({ where: { userId } });
    const data = { ...entitlement, recheckAt };
    await this.tx.entitlement.upsert({ where: { userId }, create: { userId, ...data }, update: data });
    return before && toEntitlement(before);
  }

  async upsertSubscription(userId: string, plan: string, snapshot: ProcessorSubscriptionSnapshot, eventAt: Date): Promise<boolean> {
    const [existing] = await this.tx.$queryRaw<{ lastEventAt: Date | null }[]>`
      SELECT last_event_at AS "lastEventAt" FROM subscription
      WHERE processor_subscription_id = ${snapshot.processorSubscriptionId} FOR UPDATE`;
    // Webhooks may arrive out of order: a state older than the one stored is not written back.
    if (existing?.lastEventAt && existing.lastEventAt > eventAt) return false;
    const state = {
      userId,
      plan,
      referenceId: snapshot.priceId,
      processorCustomerId: snapshot.processorCustomerId,
      status: snapshot.status,
      periodStart: snapshot.periodStart,
      periodEnd: snapshot.periodEnd,
      cancelAtPeriodEnd: snapshot.cancelAtPeriodEnd,
      seats: snapshot.seats,
      trialStart: snapshot.trialStart,
      trialEnd: snapshot.trialEnd,
      lastEventAt: eventAt,
    };
    // A snapshot without a fingerprint (the card could not be read) keeps the one known.
    const fingerprint = snapshot.cardFingerprint ? { cardFingerprint: snapshot.cardFingerprint } : {};
    await this.tx.subscription.upsert({
      where: { processorSubscriptionId: snapshot.processorSubscriptionId },
      create: { id: newId(), processorSubscriptionId: snapshot.processorSubscriptionId, ...state, ...fingerprint },
      update: { ...state, ...fingerprint },
    });
    return true;
  }

  async recordStoreNotification(notification: { uuid: string; type: string; subtype: string | null }): Promise<boolean> {
    const { count } = await this.tx.storeNotification.createMany({ data: [notification], skipDuplicates: true });
    return count === 1;
  }

  async findStoreSubscriptionForUpdate(originalTransactionId: string): Promise<StoreSubscription | null> {
    const [row] = await this.tx.$queryRaw<{ id: string }[]>`
      SELECT original_transaction_id AS id FROM store_subscription WHERE original_transaction_id = ${originalTransactionId} FOR UPDATE`;
    if (!row) return null;
    const stored = await this.tx.storeSubscription.findUnique({ where: { originalTransactionId } });
    if (!stored) return null;
    const { createdAt: _createdAt, updatedAt: _updatedAt, ...subscription } = stored;
    return { ...subscription, status: stored.status as StoreStatus };
  }

  /**
   * Updates the user's own row, or inserts a new one. Never an upsert: a row another user inserted meanwhile must make
   * this insert fail (and the transaction run again, to meet the ownership rule), not change hands.
   */
  async saveStoreSubscription(subscription: StoreSubscription): Promise<void> {
    const { originalTransactionId, userId, ...state } = subscription;
    const { count } = await this.tx.storeSubscription.updateMany({ where: { originalTransactionId, userId }, data: state });
    if (count === 0) await this.tx.storeSubscription.create({ data: subscription });
  }

  async enqueue(events: readonly EventEnvelope[]): Promise<void> {
    await enqueueEvents(this.tx, [...events]);
  }
}

export function toEntitlement(row: { isPro: boolean; source: string; plan: string | null; expiresAt: Date | null; inGrace: boolean }): Entitlement {
  return { isPro: row.isPro, source: row.source as EntitlementSource, plan: row.plan, expiresAt: row.expiresAt, inGrace: row.inGrace };
}

export function toReferral(row: Prisma.ReferralGetPayload<object>): Referral {
  const { createdAt: _createdAt, updatedAt: _updatedAt, ...referral } = row;
  return { ...referral, status: row.status as ReferralStatus };
}

export function toReward(row: Prisma.ReferralRewardGetPayload<object>): Reward {
  const { updatedAt: _updatedAt, ...reward } = row;
  return {
    ...reward,
    rewardType: row.rewardType as RewardType,
    status: row.status as RewardStatus,
    pendingReason: row.pendingReason as PendingReason | null,
  };
}

export function toWithdrawal(row: Prisma.WithdrawalGetPayload<object>): Withdrawal {
  const { updatedAt: _updatedAt, ...withdrawal } = row;
  return { ...withdrawal, status: row.status as WithdrawalStatus };
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}

/** PostgreSQL chose this transaction as a deadlock's victim (40P01) or a serialization failure (40001). */
function isDeadlock(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2034") return true;
  const text = error instanceof Error ? error.message : "";
  return /40P01|40001|deadlock detected/u.test(text);
}
