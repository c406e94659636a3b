import type { EventEnvelope } from "@study/events/envelope";
import type { AccessExtensionState, Entitlement, ProcessorSubscriptionState, StoreSubscriptionState } from "../../domain/entitlement";
import type { Balances, LedgerMovement } from "../../domain/ledger";
import type { Referral, ReferralCode, Reward } from "../../domain/referral";
import type { PayerIdentity } from "../../domain/referral-eligibility";
import type { StoreStatus } from "../../domain/store-status";
import type { Withdrawal } from "../../domain/withdrawal";
import type { ProcessorSubscriptionSnapshot, VerifiedProcessorEvent } from "./processor-events.port";

export interface BillingAccount extends Balances {
  userId: string;
  name: string;
  email: string;
  processorCustomerId: string | null;
  /** The user's first successful payment (null: none yet). */
  firstPaymentAt: Date | null;
}

/** The spec's Subscription record. */
export interface Subscription {
  id: string;
  userId: string;
  plan: string;
  referenceId: string;
  processorCustomerId: string;
  processorSubscriptionId: string;
  status: string;
  periodStart: Date | null;
  periodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  seats: number;
  trialStart: Date | null;
  trialEnd: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A user's subscriptions and referral extensions: what the entitlement is computed from. */
export interface UserSubscriptions {
  subscriptions: (ProcessorSubscriptionState & { processorSubscriptionId: string })[];
  storeSubscriptions: (StoreSubscriptionState & { originalTransactionId: string })[];
  extensions: AccessExtensionState[];
}

/** What one transaction may do. Reads named `…ForUpdate` lock the row until the transaction ends. */
export interface BillingTransaction {
  lockAccount(userId: string): Promise<BillingAccount | null>;
  findAccount(userId: string): Promise<BillingAccount | null>;
  /** Writes the ledger entry and the account's new balances (`after`, computed by the domain) together. */
  recordMovement(userId: string, movement: LedgerMovement, after: Balances, refs: { rewardId?: string; withdrawalId?: string }): Promise<void>;

  findCodeForUpdate(code: string): Promise<ReferralCode | null>;
  incrementCodeUsage(codeId: string): Promise<void>;
  findReferralOfRefereeForUpdate(refereeId: string): Promise<Referral | null>;
  findReferralForUpdate(referralId: string): Promise<Referral | null>;
  insertReferral(referral: Referral): Promise<void>;
  updateReferral(referral: Referral): Promise<void>;
  /** The referrer's referrals signed up since `since`. */
  countReferralsSince(referrerId: string, since: Date): Promise<number>;
  /** The CASH rewards made for the referrer since `since` (whatever became of them). */
  countCashRewardsSince(referrerId: string, since: Date): Promise<number>;
  /** The user's Stripe customers (their account's and their subscriptions') and their cards' fingerprints. */
  payerIdentity(userId: string): Promise<PayerIdentity>;
  /** Keeps the user's first successful payment (an earlier one stays). */
  recordFirstPayment(userId: string, at: Date): Promise<void>;
  /** The rewards of the referral whose referee is `refereeId`, locked. */
  listRewardsOfRefereeForUpdate(refereeId: string): Promise<Reward[]>;
  /** PENDING rewards whose expiry has passed at `now`, locked (rows another transaction holds are skipped). */
  findExpiredPendingRewardsForUpdate(now: Date, limit: number): Promise<Reward[]>;

  insertRewards(rewards: readonly Reward[]): Promise<void>;
  findRewardForUpdate(rewardId: string): Promise<Reward | null>;
  listRewardsOfReferral(referralId: string): Promise<Reward[]>;
  updateReward(reward: Reward): Promise<void>;

  insertWithdrawal(withdrawal: Withdrawal): Promise<void>;
  findWithdrawalForUpdate(withdrawalId: string): Promise<Withdrawal | null>;
  updateWithdrawal(withdrawal: Withdrawal): Promise<void>;

  /** Everything the entitlement is computed from (processor and store subscriptions, referral extensions). */
  loadEntitlementSources(userId: string): Promise<UserSubscriptions>;
  insertAccessExtension(userId: string, rewardId: string, extension: AccessExtensionState): Promise<void>;
  /** Stores the entitlement; answers the one stored before (null: none yet). */
  saveEntitlement(userId: string, entitlement: Entitlement, recheckAt: Date | null): Promise<Entitlement | null>;

  /**
   * Writes the subscription's state for the user unless a newer event already did (`eventAt` orders them);
   * answers whether it was written.
   */
  upsertSubscription(userId: string, plan: string, snapshot: ProcessorSubscriptionSnapshot, eventAt: Date): Promise<boolean>;

  /** Records a store notification's UUID; false when it was recorded before (a redelivery). */
  recordStoreNotification(notification: { uuid: string; type: string; subtype: string | null }): Promise<boolean>;
  findStoreSubscriptionForUpdate(originalTransactionId: string): Promise<StoreSubscription | null>;
  saveStoreSubscription(subscription: StoreSubscription): Promise<void>;

  enqueue(events: readonly EventEnvelope[]): Promise<void>;
}

/** The spec's store subscription, with its owner and the signing time of the newest payload applied. */
export interface StoreSubscription {
  originalTransactionId: string;
  userId: string;
  lastTransactionId: string;
  productId: string;
  status: StoreStatus;
  expiresAt: Date | null;
  gracePeriodExpiresAt: Date | null;
  environment: string;
  bundleId: string;
  signedAt: Date;
}

export interface NewAccount {
  userId: string;
  name: string;
  email: string;
}

export interface BillingStore {
  /** Runs `work` in one database transaction (retried by the adapter on serialization failures). */
  transaction<T>(work: (tx: BillingTransaction) => Promise<T>): Promise<T>;

  /**
   * The account and its first referral code, once: an account that exists is left as it is (a redelivered
   * registration). `newCode` is asked again while a drawn code is taken. Answers the stored account.
   */
  ensureAccount(account: NewAccount, newCode: () => string): Promise<BillingAccount>;
  findAccount(userId: string): Promise<BillingAccount | null>;
  setProcessorCustomer(userId: string, processorCustomerId: string): Promise<void>;
  findActiveCode(userId: string): Promise<ReferralCode | null>;
  findReward(rewardId: string): Promise<Reward | null>;
  findWithdrawal(withdrawalId: string): Promise<Withdrawal | null>;
  findWithdrawalByPayment(processorPaymentId: string): Promise<Withdrawal | null>;
  /** Stores a verified webhook once (with `events`, in one transaction); false when its id was stored before. */
  saveProcessorEvent(event: VerifiedProcessorEvent, events: readonly EventEnvelope[]): Promise<boolean>;
  findProcessorEvent(eventId: string): Promise<(VerifiedProcessorEvent & { processedAt: Date | null }) | null>;
  markProcessorEventProcessed(eventId: string, at: Date): Promise<void>;
  findNewestSubscription(userId: string): Promise<Subscription | null>;
  /** The user has or had a processor or store subscription. */
  hasEverSubscribed(userId: string): Promise<boolean>;
  findAccountByCustomerId(processorCustomerId: string): Promise<BillingAccount | null>;
  findEntitlement(userId: string): Promise<{ entitlement: Entitlement; recheckAt: Date | null } | null>;
  /** Sets the processor's payment id of a withdrawal that has none yet; false when it had one or is unknown. */
  attachPayment(withdrawalId: string, processorPaymentId: string): Promise<boolean>;
}
