import { randomUUID } from "node:crypto";
import {
  AutoRenewStatus,
  Environment,
  ExpirationIntent,
  NotificationTypeV2,
  RevocationReason,
  SignedDataVerifier,
  Status,
  Subtype,
  TransactionReason,
  Type,
  VerificationException,
  VerificationStatus,
} from "@apple/app-store-server-library";
import {
  APP_STORE_TEST_APP_APPLE_ID,
  APP_STORE_TEST_BUNDLE_ID,
  APP_STORE_TEST_PRODUCT_ID,
  createAppStoreCertificates,
  createAppStoreSigner,
  decodeAppStoreJws,
  tamper,
  type AppStoreCertificates,
  type AppStoreSigner,
} from "@study/testkit/app-store";

/**
 * The test kit's App Store chain and signer against Apple's own verifier (SignedDataVerifier, online checks off, as
 * the billing service runs it): what the kit signs verifies and decodes to what was signed, and each broken variant
 * is refused with the library's VerificationException and the status the billing service will see.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

let certificates: AppStoreCertificates;
let signer: AppStoreSigner;
let verifier: SignedDataVerifier;

beforeAll(async () => {
  certificates = await createAppStoreCertificates();
  signer = createAppStoreSigner(certificates);
  verifier = new SignedDataVerifier([certificates.rootCertificate], false, Environment.SANDBOX, APP_STORE_TEST_BUNDLE_ID);
});

/** Awaits a verification expected to fail; answers the VerificationStatus name (readable in a failed assertion). */
async function refusal(verification: Promise<unknown>): Promise<string | undefined> {
  const outcome: unknown = await verification.then(
    () => "verified",
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(VerificationException);
  return outcome instanceof VerificationException ? VerificationStatus[outcome.status] : undefined;
}

describe("signed data the verifier accepts", () => {
  it("a subscription purchase transaction decodes to exactly what was signed, with the kit's defaults", async () => {
    const appAccountToken = randomUUID();
    const signed = signer.signTransaction({ appAccountToken });

    const decoded = await verifier.verifyAndDecodeTransaction(signed);

    expect(decoded).toEqual(decodeAppStoreJws(signed).payload);
    expect(decoded).toMatchObject({
      appAccountToken,
      bundleId: APP_STORE_TEST_BUNDLE_ID,
      productId: APP_STORE_TEST_PRODUCT_ID,
      environment: Environment.SANDBOX,
      type: Type.AUTO_RENEWABLE_SUBSCRIPTION,
      transactionReason: TransactionReason.PURCHASE,
      currency: "USD",
      price: 9990,
    });
    expect(decoded.originalTransactionId).toBe(decoded.transactionId);
    expect(decoded.transactionId).toMatch(/^\d{16}$/);
    expect(decoded.expiresDate).toBe((decoded.purchaseDate ?? 0) + 30 * DAY_MS);
    expect(decodeAppStoreJws(signed).header).toEqual({ alg: "ES256", x5c: certificates.x5c });
    expect(certificates.x5c).toHaveLength(3);
  });

  it("fields given to the signer replace the defaults; a field set to undefined is left out", async () => {
    const purchaseDate = Date.UTC(2026, 0, 15);
    const signed = signer.signTransaction({
      transactionId: "2000000000000042",
      originalTransactionId: "2000000000000001",
      transactionReason: TransactionReason.RENEWAL,
      purchaseDate,
      appAccountToken: undefined,
    });

    const decoded = await verifier.verifyAndDecodeTransaction(signed);

    expect(decoded).toMatchObject({
      transactionId: "2000000000000042",
      originalTransactionId: "2000000000000001",
      transactionReason: TransactionReason.RENEWAL,
      purchaseDate,
      expiresDate: purchaseDate + 30 * DAY_MS,
    });
    expect(decoded).not.toHaveProperty("appAccountToken");
  });

  it("a renewal info decodes to what was signed", async () => {
    const gracePeriodExpiresDate = Date.now() + 16 * DAY_MS;
    const signed = signer.signRenewalInfo({
      originalTransactionId: "2000000000000001",
      autoRenewStatus: AutoRenewStatus.ON,
      isInBillingRetryPeriod: true,
      expirationIntent: ExpirationIntent.BILLING_ERROR,
      gracePeriodExpiresDate,
    });

    const decoded = await verifier.verifyAndDecodeRenewalInfo(signed);

    expect(decoded).toEqual(decodeAppStoreJws(signed).payload);
    expect(decoded).toMatchObject({
      originalTransactionId: "2000000000000001",
      productId: APP_STORE_TEST_PRODUCT_ID,
      autoRenewProductId: APP_STORE_TEST_PRODUCT_ID,
      isInBillingRetryPeriod: true,
      gracePeriodExpiresDate,
      environment: Environment.SANDBOX,
    });
  });

  const notifications: [NotificationTypeV2, Subtype | undefined, Status][] = [
    [NotificationTypeV2.SUBSCRIBED, Subtype.INITIAL_BUY, Status.ACTIVE],
    [NotificationTypeV2.DID_RENEW, undefined, Status.ACTIVE],
    [NotificationTypeV2.DID_FAIL_TO_RENEW, Subtype.GRACE_PERIOD, Status.BILLING_GRACE_PERIOD],
    [NotificationTypeV2.EXPIRED, Subtype.VOLUNTARY, Status.EXPIRED],
    [NotificationTypeV2.REFUND, undefined, Status.REVOKED],
    [NotificationTypeV2.REVOKE, undefined, Status.REVOKED],
  ];
  it.each(notifications)("a %s/%s notification decodes, and so do its transaction and renewal info", async (notificationType, subtype, status) => {
    const transaction = signer.signTransaction(
      status === Status.REVOKED ? { revocationDate: Date.now(), revocationReason: RevocationReason.REFUNDED_FOR_OTHER_REASON } : {},
    );
    const originalTransactionId = String(decodeAppStoreJws(transaction).payload.originalTransactionId);
    const renewalInfo = signer.signRenewalInfo({ originalTransactionId });
    const notificationUUID = randomUUID();
    const signedPayload = signer.signNotification({
      notificationType,
      subtype,
      notificationUUID,
      data: { signedTransactionInfo: transaction, signedRenewalInfo: renewalInfo, status },
    });

    const decoded = await verifier.verifyAndDecodeNotification(signedPayload);

    expect(decoded).toEqual(decodeAppStoreJws(signedPayload).payload);
    expect(decoded).toMatchObject({ notificationType, notificationUUID, version: "2.0" });
    expect(decoded.subtype).toBe(subtype);
    expect(decoded.data).toEqual({
      bundleId: APP_STORE_TEST_BUNDLE_ID,
      environment: Environment.SANDBOX,
      bundleVersion: "1.0",
      signedTransactionInfo: transaction,
      signedRenewalInfo: renewalInfo,
      status,
    });
    const decodedTransaction = await verifier.verifyAndDecodeTransaction(decoded.data?.signedTransactionInfo ?? "");
    expect(decodedTransaction).toEqual(decodeAppStoreJws(transaction).payload);
    const decodedRenewal = await verifier.verifyAndDecodeRenewalInfo(decoded.data?.signedRenewalInfo ?? "");
    expect(decodedRenewal.originalTransactionId).toBe(originalTransactionId);
  });

  it("Production: the verifier needs appAppleId, and a notification must carry the same one", async () => {
    expect(() => new SignedDataVerifier([certificates.rootCertificate], false, Environment.PRODUCTION, APP_STORE_TEST_BUNDLE_ID)).toThrow(
      "appAppleId is required when the environment is Production",
    );
    const production = new SignedDataVerifier(
      [certificates.rootCertificate],
      false,
      Environment.PRODUCTION,
      APP_STORE_TEST_BUNDLE_ID,
      APP_STORE_TEST_APP_APPLE_ID,
    );
    const productionSigner = createAppStoreSigner(certificates, {
      environment: Environment.PRODUCTION,
      appAppleId: APP_STORE_TEST_APP_APPLE_ID,
    });
    const transaction = productionSigner.signTransaction();

    const decoded = await production.verifyAndDecodeNotification(
      productionSigner.signNotification({ notificationType: NotificationTypeV2.DID_RENEW, data: { signedTransactionInfo: transaction } }),
    );
    expect(decoded.data?.appAppleId).toBe(APP_STORE_TEST_APP_APPLE_ID);
    expect((await production.verifyAndDecodeTransaction(transaction)).environment).toBe(Environment.PRODUCTION);

    const otherApp = productionSigner.signNotification({
      notificationType: NotificationTypeV2.DID_RENEW,
      data: { appAppleId: 42, signedTransactionInfo: transaction },
    });
    expect(await refusal(production.verifyAndDecodeNotification(otherApp))).toBe("INVALID_APP_IDENTIFIER");
  });

  it("a chain issued under a root passed in is trusted by the verifier of that root", async () => {
    const sameRoot = await createAppStoreCertificates({ root: certificates.root });
    expect(sameRoot.rootCertificate).toEqual(certificates.rootCertificate);
    expect(sameRoot.leafCertificate).not.toEqual(certificates.leafCertificate);

    const decoded = await verifier.verifyAndDecodeTransaction(createAppStoreSigner(sameRoot).signTransaction());
    expect(decoded.bundleId).toBe(APP_STORE_TEST_BUNDLE_ID);
  });
});

describe("signed data the verifier refuses", () => {
  it("a payload changed after signing (VERIFICATION_FAILURE)", async () => {
    const signed = signer.signTransaction();
    expect(await refusal(verifier.verifyAndDecodeTransaction(tamper(signed)))).toBe("VERIFICATION_FAILURE");
    const notification = signer.signNotification({ notificationType: NotificationTypeV2.DID_RENEW, data: { signedTransactionInfo: signed } });
    const redirected = tamper(notification, { notificationType: NotificationTypeV2.REFUND });
    expect(await refusal(verifier.verifyAndDecodeNotification(redirected))).toBe("VERIFICATION_FAILURE");
  });

  it("a notification's own signature does not vouch for the transaction inside it: that needs its own verification", async () => {
    const forgedTransaction = tamper(signer.signTransaction(), { productId: "com.studyservice.app.pro.yearly" });
    const notification = signer.signNotification({
      notificationType: NotificationTypeV2.DID_RENEW,
      data: { signedTransactionInfo: forgedTransaction },
    });

    const decoded = await verifier.verifyAndDecodeNotification(notification);

    expect(decoded.data?.signedTransactionInfo).toBe(forgedTransaction);
    expect(await refusal(verifier.verifyAndDecodeTransaction(forgedTransaction))).toBe("VERIFICATION_FAILURE");
  });

  it("a chain whose intermediate was issued by another root of the same name (VERIFICATION_FAILURE)", async () => {
    const impostor = await createAppStoreCertificates({ root: certificates.root, untrustedRoot: true });
    expect(impostor.rootCertificate).toEqual(certificates.rootCertificate);
    expect(impostor.x5c[2]).not.toBe(certificates.rootCertificateBase64);

    const impostorSigner = createAppStoreSigner(impostor);
    expect(await refusal(verifier.verifyAndDecodeTransaction(impostorSigner.signTransaction()))).toBe("VERIFICATION_FAILURE");
    const notification = impostorSigner.signNotification({ notificationType: NotificationTypeV2.DID_RENEW });
    expect(await refusal(verifier.verifyAndDecodeNotification(notification))).toBe("VERIFICATION_FAILURE");
  });

  it("a whole chain under a root the verifier was not given (VERIFICATION_FAILURE)", async () => {
    const stranger = createAppStoreSigner(await createAppStoreCertificates());
    expect(await refusal(verifier.verifyAndDecodeTransaction(stranger.signTransaction()))).toBe("VERIFICATION_FAILURE");
  });

  it("a leaf without Apple's marker extension (VERIFICATION_FAILURE)", async () => {
    const unmarked = createAppStoreSigner(await createAppStoreCertificates({ root: certificates.root, leafWithoutAppleExtension: true }));
    expect(await refusal(verifier.verifyAndDecodeTransaction(unmarked.signTransaction()))).toBe("VERIFICATION_FAILURE");
  });

  it("an expired leaf (INVALID_CERTIFICATE), judged at the payload's signedDate since online checks are off", async () => {
    const expired = createAppStoreSigner(await createAppStoreCertificates({ root: certificates.root, expiredLeaf: true }));

    expect(await refusal(verifier.verifyAndDecodeTransaction(expired.signTransaction()))).toBe("INVALID_CERTIFICATE");
    const notification = expired.signNotification({ notificationType: NotificationTypeV2.EXPIRED, subtype: Subtype.VOLUNTARY });
    expect(await refusal(verifier.verifyAndDecodeNotification(notification))).toBe("INVALID_CERTIFICATE");
    // Offline, the verifier trusts the payload's own signedDate: data dated while the leaf was valid still passes.
    const backdated = expired.signTransaction({ signedDate: Date.now() - 10 * DAY_MS });
    expect((await verifier.verifyAndDecodeTransaction(backdated)).bundleId).toBe(APP_STORE_TEST_BUNDLE_ID);
  });

  it("an x5c header without the intermediate (INVALID_CERTIFICATE, caused by INVALID_CHAIN_LENGTH)", async () => {
    const short = await createAppStoreCertificates({ root: certificates.root, shortChain: true });
    expect(short.x5c).toHaveLength(2);

    const signed = createAppStoreSigner(short).signTransaction();
    const outcome: unknown = await verifier.verifyAndDecodeTransaction(signed).catch((error: unknown) => error);

    // The library throws INVALID_CHAIN_LENGTH inside its header parsing and rewraps it: the status seen outside is
    // INVALID_CERTIFICATE, the chain length is the cause.
    expect(outcome).toBeInstanceOf(VerificationException);
    expect(outcome).toMatchObject({
      status: VerificationStatus.INVALID_CERTIFICATE,
      cause: expect.objectContaining({ status: VerificationStatus.INVALID_CHAIN_LENGTH }),
    });
  });

  it("another app's bundle id (INVALID_APP_IDENTIFIER)", async () => {
    const otherApp = createAppStoreSigner(certificates, { bundleId: "com.example.other" });
    expect(await refusal(verifier.verifyAndDecodeTransaction(otherApp.signTransaction()))).toBe("INVALID_APP_IDENTIFIER");
    const notification = otherApp.signNotification({ notificationType: NotificationTypeV2.DID_RENEW });
    expect(await refusal(verifier.verifyAndDecodeNotification(notification))).toBe("INVALID_APP_IDENTIFIER");
    // a renewal info carries no bundle id: the library checks only its environment
    expect((await verifier.verifyAndDecodeRenewalInfo(otherApp.signRenewalInfo())).environment).toBe(Environment.SANDBOX);
  });

  it("the other environment (INVALID_ENVIRONMENT)", async () => {
    const production = createAppStoreSigner(certificates, { environment: Environment.PRODUCTION });
    expect(await refusal(verifier.verifyAndDecodeTransaction(production.signTransaction()))).toBe("INVALID_ENVIRONMENT");
    expect(await refusal(verifier.verifyAndDecodeRenewalInfo(production.signRenewalInfo()))).toBe("INVALID_ENVIRONMENT");
    const notification = production.signNotification({ notificationType: NotificationTypeV2.DID_RENEW });
    expect(await refusal(verifier.verifyAndDecodeNotification(notification))).toBe("INVALID_ENVIRONMENT");
  });

  it("something that is not a JWS at all (VERIFICATION_FAILURE)", async () => {
    expect(await refusal(verifier.verifyAndDecodeNotification("not-a-jws"))).toBe("VERIFICATION_FAILURE");
  });
});
