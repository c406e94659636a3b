import { readFileSync } from "node:fs";
import {
  Environment,
  SignedDataVerifier,
  VerificationException,
  type JWSRenewalInfoDecodedPayload,
  type JWSTransactionDecodedPayload,
} from "@apple/app-store-server-library";
import type { Logger } from "@study/platform";
import { AppError } from "@study/platform/errors";
import type { StoreVerifier, VerifiedStoreNotification, VerifiedStoreTransaction } from "../../application/ports/store-verifier.port";

export interface AppStoreSettings {
  /** Root certificates trusted for the signatures (Apple's in production), DER. */
  rootCertificates: Buffer[];
  bundleId: string;
  /** The app's Apple id: required by the library for Production. */
  appAppleId?: number;
  /** The environments accepted ("Sandbox", "Production"). */
  environments: readonly string[];
}

/**
 * Environments whose signatures are checked. The library skips verification for Xcode and LocalTesting data,
 * so those are refused here outright: a server must never trust an unsigned purchase.
 */
const VERIFIED_ENVIRONMENTS = new Map<string, Environment>([
  ["Sandbox", Environment.SANDBOX],
  ["Production", Environment.PRODUCTION],
]);

/** Verifies App Store signed data with Apple's library (certificate chain, bundle id, environment). */
export class AppStoreVerifier implements StoreVerifier {
  private readonly verifiers = new Map<string, SignedDataVerifier>();

  constructor(
    private readonly settings: AppStoreSettings,
    private readonly logger: Pick<Logger, "warn">,
  ) {
    for (const name of settings.environments) {
      const environment = VERIFIED_ENVIRONMENTS.get(name);
      if (!environment) throw new Error(`App Store environment ${name} is not one whose signatures are verified (Sandbox, Production)`);
      if (environment === Environment.PRODUCTION && settings.appAppleId === undefined) {
        throw new Error("APP_STORE_APP_APPLE_ID is required to accept Production App Store data");
      }
      // Online checks (OCSP revocation) need Apple's servers; certificate dates are checked at the payload's signing time.
      this.verifiers.set(name, new SignedDataVerifier(settings.rootCertificates, false, environment, settings.bundleId, settings.appAppleId));
    }
  }

  async verifyNotification(signedPayload: string): Promise<VerifiedStoreNotification> {
    // The environment is read from the payload to choose the verifier; the verifier then checks it again.
    const environment = this.verifierFor(unverifiedEnvironment(signedPayload));
    const notification = await this.verified("notification", () => environment.verifier.verifyAndDecodeNotification(signedPayload));
    const data = notification.data;
    // The library does not verify the nested signed data: each part is verified on its own.
    const transaction = data?.signedTransactionInfo
      ? toTransaction(await this.verified("transaction", () => environment.verifier.verifyAndDecodeTransaction(required(data.signedTransactionInfo))))
      : null;
    const renewal: JWSRenewalInfoDecodedPayload | null = data?.signedRenewalInfo
      ? await this.verified("renewal info", () => environment.verifier.verifyAndDecodeRenewalInfo(required(data.signedRenewalInfo)))
      : null;
    return {
      notificationUuid: required(notification.notificationUUID),
      notificationType: notification.notificationType ?? "",
      subtype: notification.subtype ?? null,
      signedAt: new Date(notification.signedDate ?? Date.now()),
      transaction,
      gracePeriodExpiresAt: renewal?.gracePeriodExpiresDate ? new Date(renewal.gracePeriodExpiresDate) : null,
    };
  }

  async verifyTransaction(signedTransaction: string, expected: { bundleId: string; environment: string }): Promise<VerifiedStoreTransaction> {
    if (expected.bundleId !== this.settings.bundleId) throw storeFailure(`bundle id ${expected.bundleId} is not this app's`);
    const { verifier } = this.verifierFor(expected.environment);
    return toTransaction(await this.verified("transaction", () => verifier.verifyAndDecodeTransaction(signedTransaction)));
  }

  private verifierFor(environment: string | undefined): { verifier: SignedDataVerifier } {
    const verifier = environment ? this.verifiers.get(environment) : undefined;
    if (!verifier) throw storeFailure(`the ${environment ?? "unknown"} environment is not accepted`);
    return { verifier };
  }

  private async verified<T>(what: string, verify: () => Promise<T>): Promise<T> {
    try {
      return await verify();
    } catch (error) {
      if (error instanceof AppError) throw error;
      const status = error instanceof VerificationException ? error.status : undefined;
      this.logger.warn({ err: error, what, status }, "App Store signed data refused");
      throw storeFailure(`the ${what} could not be verified${status === undefined ? "" : ` (status ${status})`}`, error);
    }
  }
}

function toTransaction(payload: JWSTransactionDecodedPayload): VerifiedStoreTransaction {
  return {
    originalTransactionId: required(payload.originalTransactionId),
    transactionId: required(payload.transactionId),
    productId: required(payload.productId),
    bundleId: required(payload.bundleId),
    environment: payload.environment ?? "",
    expiresAt: payload.expiresDate ? new Date(payload.expiresDate) : null,
    revoked: payload.revocationDate !== undefined && payload.revocationDate !== null,
    appAccountToken: payload.appAccountToken ?? null,
    // An introductory free trial is no payment (App Store: offerDiscountType FREE_TRIAL).
    freeTrial: payload.offerDiscountType === "FREE_TRIAL",
    purchasedAt: payload.purchaseDate ? new Date(payload.purchaseDate) : null,
    signedAt: new Date(payload.signedDate ?? Date.now()),
  };
}

function required(value: string | undefined): string {
  if (!value) throw storeFailure("a required field is missing");
  return value;
}

/** `data.environment` of a compact JWS, read without verification (only to pick the verifier). */
function unverifiedEnvironment(jws: string): string | undefined {
  const payload = jws.split(".")[1];
  if (!payload) throw storeFailure("the payload is not a signed App Store notification");
  try {
    const decoded: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const data = typeof decoded === "object" && decoded !== null ? (decoded as Record<string, unknown>).data : undefined;
    const environment = typeof data === "object" && data !== null ? (data as Record<string, unknown>).environment : undefined;
    return typeof environment === "string" ? environment : undefined;
  } catch (error) {
    throw storeFailure("the payload is not a signed App Store notification", error);
  }
}

function storeFailure(reason: string, cause?: unknown): AppError {
  return new AppError("validation", "STORE_VERIFICATION_FAILED", `App Store data refused: ${reason}`, { cause });
}

/** Root certificates from settings: each entry a file (.cer/.der DER, .pem) or base64 DER. */
export function loadRootCertificates(entries: readonly string[]): Buffer[] {
  return entries.map((entry) => {
    if (/\.(cer|der|crt)$/iu.test(entry)) return readFileSync(entry);
    if (/\.pem$/iu.test(entry)) {
      const pem = readFileSync(entry, "utf8");
      return Buffer.from(pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/gu, ""), "base64");
    }
    return Buffer.from(entry, "base64");
  });
}
