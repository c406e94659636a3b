import type { Logger } from "@study/platform";
import type { Clock } from "@study/platform/clock";
import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import { v5 as uuidv5 } from "uuid";
import type { Entitlement } from "../domain/entitlement";
import { statusOfTransaction, storeStatusAfter, type StoreStatus } from "../domain/store-status";
import type { BillingStore, StoreSubscription } from "./ports/billing-store.port";
import type { StoreVerifier, VerifiedStoreTransaction } from "./ports/store-verifier.port";
import { recordPayment } from "./first-payment";
import { refreshEntitlement } from "./refresh-entitlement";

/** A verified store transaction that charged money: not a free trial, not refunded or revoked. */
const isPayment = (transaction: VerifiedStoreTransaction) => !transaction.freeTrial && !transaction.revoked;

/** Namespace of the App Store account tokens (a fixed, random UUID). */
const ACCOUNT_TOKEN_NAMESPACE = "5f0c6d3e-8a41-4b7e-9d2c-1e6f3a9b7c40";

/**
 * The `appAccountToken` the app sets on its purchases for a user: a name-based UUID of the user id, so the server
 * recognises the user of a transaction without storing tokens (GET /api/entitlements/me tells the app its token).
 */
export const appAccountTokenOf = (userId: string): string => uuidv5(userId, ACCOUNT_TOKEN_NAMESPACE);

const accountMismatch = () => new AppError("forbidden", "STORE_ACCOUNT_MISMATCH", "This App Store purchase belongs to another account");

/**
 * The app reports a purchase: the signed transaction is verified, linked to the caller (refused when its account
 * token or its subscription is another user's), the store subscription upserted and the entitlement computed.
 */
export class ConfirmStorePurchase {
  constructor(
    private readonly store: BillingStore,
    private readonly verifier: StoreVerifier,
    private readonly clock: Clock,
  ) {}

  async execute(userId: string, input: { receipt: string; bundleId: string; environment: string; productId?: string }): Promise<Entitlement> {
    requireUserId(userId);
    const transaction = await this.verifier.verifyTransaction(input.receipt, { bundleId: input.bundleId, environment: input.environment });
    if (input.productId && input.productId !== transaction.productId) {
      throw AppError.validation("productId does not match the transaction", [
        { field: "productId", message: `the transaction is for ${transaction.productId}` },
      ]);
    }
    if (transaction.appAccountToken && transaction.appAccountToken.toLowerCase() !== appAccountTokenOf(userId)) throw accountMismatch();
    return this.store.transaction(async (tx) => {
      const now = this.clock.now();
      const existing = await tx.findStoreSubscriptionForUpdate(transaction.originalTransactionId);
      if (existing && existing.userId !== userId) throw accountMismatch();
      if (!existing || existing.signedAt <= transaction.signedAt) {
        await tx.saveStoreSubscription(
          subscriptionOf(userId, transaction, statusOfTransaction(transaction, now), existing?.gracePeriodExpiresAt ?? null),
        );
      }
      if (isPayment(transaction)) await recordPayment(tx, userId, transaction.purchasedAt ?? transaction.signedAt);
      return refreshEntitlement(tx, userId, now);
    });
  }
}

/**
 * An App Store Server Notification v2: verified (with its transaction), applied once per notification UUID, and
 * only when it is newer than what the subscription holds (Apple retries and may deliver out of order). A
 * notification about a subscription no user confirmed yet is recorded and left: the app's confirm call links it.
 */
export class HandleStoreNotification {
  constructor(
    private readonly store: BillingStore,
    private readonly verifier: StoreVerifier,
    private readonly clock: Clock,
    private readonly logger: Pick<Logger, "info">,
  ) {}

  async execute(
    signedPayload: string,
  ): Promise<{ notificationUuid: string; notificationType: string; duplicate: boolean; status: StoreStatus | "" }> {
    const notification = await this.verifier.verifyNotification(signedPayload);
    const answer = { notificationUuid: notification.notificationUuid, notificationType: notification.notificationType };
    return this.store.transaction(async (tx) => {
      const fresh = await tx.recordStoreNotification({
        uuid: notification.notificationUuid,
        type: notification.notificationType,
        subtype: notification.subtype,
      });
      const transaction = notification.transaction;
      const existing = transaction ? await tx.findStoreSubscriptionForUpdate(transaction.originalTransactionId) : null;
      if (!fresh) return { ...answer, duplicate: true, status: existing?.status ?? "" };
      if (!transaction || !existing) {
        this.logger.info(
          { ...answer, originalTransactionId: transaction?.originalTransactionId },
          "store notification for a subscription no user confirmed yet",
        );
        return { ...answer, duplicate: false, status: "" };
      }
      if (existing.signedAt > notification.signedAt) return { ...answer, duplicate: false, status: existing.status };
      const now = this.clock.now();
      const status = storeStatusAfter(notification.notificationType, notification.subtype ?? undefined, transaction, now);
      await tx.saveStoreSubscription({
        ...subscriptionOf(existing.userId, transaction, status, notification.gracePeriodExpiresAt ?? existing.gracePeriodExpiresAt),
        signedAt: notification.signedAt,
      });
      await refreshEntitlement(tx, existing.userId, now);
      if (isPayment(transaction)) await recordPayment(tx, existing.userId, transaction.purchasedAt ?? transaction.signedAt);
      return { ...answer, duplicate: false, status };
    });
  }
}

function subscriptionOf(
  userId: string,
  transaction: VerifiedStoreTransaction,
  status: StoreStatus,
  gracePeriodExpiresAt: Date | null,
): StoreSubscription {
  return {
    originalTransactionId: transaction.originalTransactionId,
    userId,
    lastTransactionId: transaction.transactionId,
    productId: transaction.productId,
    status,
    expiresAt: transaction.expiresAt,
    gracePeriodExpiresAt,
    environment: transaction.environment,
    bundleId: transaction.bundleId,
    signedAt: transaction.signedAt,
  };
}
