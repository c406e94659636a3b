/** An App Store transaction whose signature chain, bundle id and environment were verified. */
export interface VerifiedStoreTransaction {
  originalTransactionId: string;
  transactionId: string;
  productId: string;
  bundleId: string;
  environment: string;
  expiresAt: Date | null;
  /** Refunded or revoked (family sharing ended): no access. */
  revoked: boolean;
  /** The UUID the app attached to the purchase (links it to the server's user). */
  appAccountToken: string | null;
  /** The transaction is a free trial (an introductory offer that charged nothing): no payment. */
  freeTrial: boolean;
  /** When it was bought (charged, unless a free trial). */
  purchasedAt: Date | null;
  signedAt: Date;
}

/** An App Store Server Notification v2, verified, with its transaction and renewal info verified too. */
export interface VerifiedStoreNotification {
  notificationUuid: string;
  notificationType: string;
  subtype: string | null;
  signedAt: Date;
  transaction: VerifiedStoreTransaction | null;
  gracePeriodExpiresAt: Date | null;
}

/**
 * Verifies App Store signed data against the configured root certificates (Apple's in production) and the app's
 * bundle id and environment; throws AppError STORE_VERIFICATION_FAILED (400) when any check fails.
 */
export interface StoreVerifier {
  verifyNotification(signedPayload: string): Promise<VerifiedStoreNotification>;
  verifyTransaction(signedTransaction: string, expected: { bundleId: string; environment: string }): Promise<VerifiedStoreTransaction>;
}
