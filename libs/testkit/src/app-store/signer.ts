import { randomInt, randomUUID, sign } from "node:crypto";
import {
  AutoRenewStatus,
  Environment,
  InAppOwnershipType,
  TransactionReason,
  Type,
  type Data,
  type JWSRenewalInfoDecodedPayload,
  type JWSTransactionDecodedPayload,
  type NotificationTypeV2,
  type ResponseBodyV2DecodedPayload,
  type Subtype,
} from "@apple/app-store-server-library";
import type { AppStoreCertificates } from "./certificates";

/** Defaults of the signed data; a test that configures its verifier with other values passes them here. */
export const APP_STORE_TEST_BUNDLE_ID = "com.studyservice.app";
export const APP_STORE_TEST_PRODUCT_ID = "com.studyservice.app.pro.monthly";
export const APP_STORE_TEST_APP_APPLE_ID = 1234567890;

const DAY_MS = 24 * 60 * 60 * 1000;
const SUBSCRIPTION_PERIOD_MS = 30 * DAY_MS;

export interface AppStoreSignerOptions {
  /** bundleId of every payload unless a call says otherwise (default APP_STORE_TEST_BUNDLE_ID). */
  bundleId?: string;
  /** environment of every payload unless a call says otherwise (default Sandbox). */
  environment?: Environment;
  /** appAppleId of notifications (the verifier compares it in Production only; Apple omits it in the sandbox). */
  appAppleId?: number;
  /** productId of transactions and renewal infos (default APP_STORE_TEST_PRODUCT_ID). */
  productId?: string;
}

/** What `signNotification` takes: the decoded notification, with `data` completed from the signer's defaults. */
export interface AppStoreNotificationInput {
  notificationType: NotificationTypeV2 | string;
  subtype?: Subtype | string;
  /** Default: a new UUID. */
  notificationUUID?: string;
  /** Default: now. Offline, the verifier checks the certificates' validity at this date. */
  signedDate?: number;
  /** Default "2.0". */
  version?: string;
  /** bundleId, environment and appAppleId default to the signer's; signedTransactionInfo etc. are the caller's. */
  data?: Data;
}

export interface AppStoreSigner {
  /**
   * A signed transaction (JWSTransaction) of a subscription purchase: defaults (new transaction ids, purchase now,
   * expires in 30 days, "Auto-Renewable Subscription", PURCHASED, PURCHASE, USA/USD 9.99) overridden by `fields`.
   * A field set to `undefined` is left out of the payload.
   */
  signTransaction(fields?: JWSTransactionDecodedPayload): string;
  /** A signed renewal info (JWSRenewalInfo): auto-renew on, renewal in 30 days, overridden by `fields`. */
  signRenewalInfo(fields?: JWSRenewalInfoDecodedPayload): string;
  /** The `signedPayload` of an App Store Server Notification v2, as Apple POSTs it to the notification URL. */
  signNotification(notification: AppStoreNotificationInput): string;
  /** Signs any payload as it is (e.g. a notification with `summary` instead of `data`). */
  sign(payload: object): string;
}

/** Signs App Store payloads (ES256 compact JWS, x5c header) with the chain's leaf key. */
export function createAppStoreSigner(certificates: AppStoreCertificates, options: AppStoreSignerOptions = {}): AppStoreSigner {
  const bundleId = options.bundleId ?? APP_STORE_TEST_BUNDLE_ID;
  const environment = options.environment ?? Environment.SANDBOX;
  const productId = options.productId ?? APP_STORE_TEST_PRODUCT_ID;
  const header = encodeSegment({ alg: "ES256", x5c: certificates.x5c });

  const signPayload = (payload: object): string => {
    const signingInput = `${header}.${encodeSegment(payload)}`;
    // JWS ES256 wants the raw r||s signature (IEEE P1363), not node's default DER encoding.
    const signature = sign("sha256", Buffer.from(signingInput), { key: certificates.signingKey, dsaEncoding: "ieee-p1363" });
    return `${signingInput}.${signature.toString("base64url")}`;
  };

  return {
    sign: signPayload,

    signTransaction(fields = {}) {
      const now = Date.now();
      const transactionId = fields.transactionId ?? newTransactionId();
      const purchaseDate = fields.purchaseDate ?? now;
      const defaults: JWSTransactionDecodedPayload = {
        transactionId,
        originalTransactionId: transactionId,
        webOrderLineItemId: newTransactionId(),
        bundleId,
        productId,
        subscriptionGroupIdentifier: "21000001",
        purchaseDate,
        originalPurchaseDate: purchaseDate,
        expiresDate: purchaseDate + SUBSCRIPTION_PERIOD_MS,
        quantity: 1,
        type: Type.AUTO_RENEWABLE_SUBSCRIPTION,
        inAppOwnershipType: InAppOwnershipType.PURCHASED,
        signedDate: now,
        environment,
        transactionReason: TransactionReason.PURCHASE,
        storefront: "USA",
        storefrontId: "143441",
        // Apple states prices in milliunits of the currency: 9990 is 9.99
        price: 9990,
        currency: "USD",
        appTransactionId: newTransactionId(),
      };
      return signPayload({ ...defaults, ...fields });
    },

    signRenewalInfo(fields = {}) {
      const now = Date.now();
      const defaults: JWSRenewalInfoDecodedPayload = {
        originalTransactionId: newTransactionId(),
        autoRenewProductId: fields.productId ?? productId,
        productId,
        autoRenewStatus: AutoRenewStatus.ON,
        signedDate: now,
        environment,
        recentSubscriptionStartDate: now,
        renewalDate: now + SUBSCRIPTION_PERIOD_MS,
        renewalPrice: 9990,
        currency: "USD",
      };
      return signPayload({ ...defaults, ...fields });
    },

    signNotification(notification) {
      const data: Data = {
        bundleId,
        environment,
        bundleVersion: "1.0",
        ...(options.appAppleId === undefined ? {} : { appAppleId: options.appAppleId }),
        ...notification.data,
      };
      const payload: ResponseBodyV2DecodedPayload = {
        notificationType: notification.notificationType,
        subtype: notification.subtype,
        notificationUUID: notification.notificationUUID ?? randomUUID(),
        data,
        version: notification.version ?? "2.0",
        signedDate: notification.signedDate ?? Date.now(),
      };
      return signPayload(payload);
    },
  };
}

/** The header and payload of a compact JWS, decoded without any verification (for assertions). */
export function decodeAppStoreJws(jws: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header, payload] = jws.split(".");
  return { header: decodeSegment(header), payload: decodeSegment(payload) };
}

/**
 * The same JWS with `changes` merged into its payload and the original signature kept: what an attacker who edits
 * the data in transit sends. The verifier must refuse it.
 */
export function tamper(jws: string, changes: Record<string, unknown> = { expiresDate: Date.UTC(2099, 0, 1) }): string {
  const [header, payload, signature] = jws.split(".");
  return `${header}.${encodeSegment({ ...decodeSegment(payload), ...changes })}.${signature}`;
}

function encodeSegment(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

function decodeSegment(segment: string | undefined): Record<string, unknown> {
  if (!segment) throw new Error("not a compact JWS: expected header.payload.signature");
  const value: unknown = JSON.parse(Buffer.from(segment, "base64url").toString("utf8"));
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("JWS segment is not a JSON object");
  return { ...value };
}

/** A numeric id the way Apple writes transaction ids (16 digits); random so parallel test files never collide. */
function newTransactionId(): string {
  return `2000${String(randomInt(0, 1e12)).padStart(12, "0")}`;
}
