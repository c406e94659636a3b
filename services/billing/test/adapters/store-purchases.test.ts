import { Environment, InAppOwnershipType } from "@apple/app-store-server-library";
import { randomUUID } from "node:crypto";
import { prismaOptions } from "@study/db";
import { fixedClock } from "@study/platform/clock";
import { migrationSources } from "@study/runtime";
import { createTestDatabase } from "@study/testkit";
import {
  APP_STORE_TEST_BUNDLE_ID,
  APP_STORE_TEST_PRODUCT_ID,
  createAppStoreCertificates,
  createAppStoreSigner,
  tamper,
  type AppStoreCertificates,
  type AppStoreSigner,
} from "@study/testkit/app-store";
import { AppStoreVerifier } from "../../src/adapters/app-store/app-store-verifier";
import { PrismaBillingStore } from "../../src/adapters/db/prisma-billing-store";
import { GetEntitlement } from "../../src/application/get-entitlement";
import { ConfirmStorePurchase, HandleStoreNotification, appAccountTokenOf } from "../../src/application/store-purchases";
import { PrismaClient } from "../../src/generated/prisma/client";
import { billingService } from "../../src/service";

const silent = { info: () => undefined, warn: () => undefined };
const DAY = 86_400_000;

describe("App Store purchases and notifications, verified with Apple's library against a generated chain", () => {
  let db: PrismaClient;
  let store: PrismaBillingStore;
  let certificates: AppStoreCertificates;
  let signer: AppStoreSigner;
  let confirm: ConfirmStorePurchase;
  let notify: HandleStoreNotification;
  let entitlement: GetEntitlement;
  // The verifier checks certificate dates at the payload's signing time: the clock follows the real one.
  const clock = fixedClock(new Date());

  beforeAll(async () => {
    db = new PrismaClient(prismaOptions(await createTestDatabase("billing_store", migrationSources(billingService)), 5));
    store = new PrismaBillingStore(db);
    certificates = await createAppStoreCertificates();
    signer = createAppStoreSigner(certificates);
    const verifier = new AppStoreVerifier(
      { rootCertificates: [certificates.rootCertificate], bundleId: APP_STORE_TEST_BUNDLE_ID, environments: ["Sandbox"] },
      silent,
    );
    confirm = new ConfirmStorePurchase(store, verifier, clock);
    notify = new HandleStoreNotification(store, verifier, clock, silent);
    entitlement = new GetEntitlement(store, clock);
  });

  afterAll(async () => {
    await db.$disconnect();
  });

  const purchase = { bundleId: APP_STORE_TEST_BUNDLE_ID, environment: "Sandbox" };
  const now = () => clock.now().getTime();

  function subscription(userId: string, fields: Record<string, unknown> = {}) {
    const originalTransactionId = String(Date.now()) + String(Math.floor(Math.random() * 1e6));
    return signer.signTransaction({
      originalTransactionId,
      transactionId: originalTransactionId,
      appAccountToken: appAccountTokenOf(userId),
      expiresDate: now() + 30 * DAY,
      ...fields,
    });
  }

  const originalOf = (jws: string) =>
    String((JSON.parse(Buffer.from(jws.split(".")[1], "base64url").toString()) as { originalTransactionId: string }).originalTransactionId);

  it("unlocks Pro at once on confirm and keeps the subscription in sync with notifications", async () => {
    const userId = `store-${randomUUID()}`;
    const receipt = subscription(userId);
    expect(await confirm.execute(userId, { ...purchase, receipt, productId: APP_STORE_TEST_PRODUCT_ID })).toMatchObject({
      isPro: true,
      source: "store",
      plan: APP_STORE_TEST_PRODUCT_ID,
    });

    const original = originalOf(receipt);
    const graceUntil = now() + 16 * DAY;
    const lapsed = signer.signTransaction({
      originalTransactionId: original,
      transactionId: original,
      appAccountToken: appAccountTokenOf(userId),
      expiresDate: now() - DAY,
    });
    const failed = signer.signNotification({
      notificationType: "DID_FAIL_TO_RENEW",
      subtype: "GRACE_PERIOD",
      data: {
        signedTransactionInfo: lapsed,
        signedRenewalInfo: signer.signRenewalInfo({ originalTransactionId: original, gracePeriodExpiresDate: graceUntil }),
      },
    });
    expect(await notify.execute(failed)).toMatchObject({ notificationType: "DID_FAIL_TO_RENEW", status: "in_grace", duplicate: false });
    expect(await notify.execute(failed)).toMatchObject({ duplicate: true, status: "in_grace" });
    expect(await entitlement.execute(userId)).toMatchObject({ isPro: true, source: "store", inGrace: true, expiresAt: new Date(graceUntil) });

    clock.advance(1000);
    const expired = signer.signNotification({ notificationType: "EXPIRED", subtype: "BILLING_RETRY", data: { signedTransactionInfo: lapsed } });
    expect(await notify.execute(expired)).toMatchObject({ status: "expired" });
    expect(await entitlement.execute(userId)).toMatchObject({ isPro: false, source: "none" });

    clock.advance(1000);
    const renewed = signer.signTransaction({
      originalTransactionId: original,
      transactionId: `${original}9`,
      appAccountToken: appAccountTokenOf(userId),
      expiresDate: now() + 30 * DAY,
    });
    expect(await notify.execute(signer.signNotification({ notificationType: "DID_RENEW", data: { signedTransactionInfo: renewed } }))).toMatchObject({
      status: "active",
    });
    expect(await entitlement.execute(userId)).toMatchObject({ isPro: true, source: "store", inGrace: false });

    clock.advance(1000);
    const refunded = signer.signTransaction({
      originalTransactionId: original,
      transactionId: `${original}9`,
      expiresDate: now() + 30 * DAY,
      revocationDate: now(),
      revocationReason: 0,
    });
    expect(await notify.execute(signer.signNotification({ notificationType: "REFUND", data: { signedTransactionInfo: refunded } }))).toMatchObject({
      status: "expired",
    });
    expect(await entitlement.execute(userId)).toMatchObject({ isPro: false });

    // A notification signed before the stored state arrives late: it changes nothing.
    const late = signer.signNotification({ notificationType: "DID_RENEW", signedDate: now() - 60_000, data: { signedTransactionInfo: renewed } });
    expect(await notify.execute(late)).toMatchObject({ status: "expired", duplicate: false });
  });

  it("ends access when a family-shared purchase is revoked", async () => {
    const userId = `store-${randomUUID()}`;
    const receipt = subscription(userId);
    expect((await confirm.execute(userId, { ...purchase, receipt })).isPro).toBe(true);
    const original = originalOf(receipt);
    clock.advance(1000);
    const revoked = signer.signTransaction({
      originalTransactionId: original,
      transactionId: original,
      expiresDate: now() + 29 * DAY,
      revocationDate: now(),
      revocationReason: 0,
      inAppOwnershipType: InAppOwnershipType.FAMILY_SHARED,
    });
    expect(await notify.execute(signer.signNotification({ notificationType: "REVOKE", data: { signedTransactionInfo: revoked } }))).toMatchObject({
      status: "expired",
    });
    expect(await entitlement.execute(userId)).toMatchObject({ isPro: false, source: "none" });
  });

  it("confirms a purchase reported twice at once, and refuses the other account racing for it", async () => {
    const owner = `store-${randomUUID()}`;
    const receipt = subscription(owner, { appAccountToken: undefined });
    const both = await Promise.all([confirm.execute(owner, { ...purchase, receipt }), confirm.execute(owner, { ...purchase, receipt })]);
    expect(both.map((answer) => answer.isPro)).toEqual([true, true]);
    const rival = subscription(owner, { appAccountToken: undefined });
    const raced = await Promise.allSettled([
      confirm.execute(owner, { ...purchase, receipt: rival }),
      confirm.execute(`store-${randomUUID()}`, { ...purchase, receipt: rival }),
    ]);
    expect(raced.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    expect(raced.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected")?.reason).toMatchObject({
      code: "STORE_ACCOUNT_MISMATCH",
    });
  });

  it("refuses a purchase that belongs to another account", async () => {
    const owner = `store-${randomUUID()}`;
    const other = `store-${randomUUID()}`;
    const receipt = subscription(owner);
    await expect(confirm.execute(other, { ...purchase, receipt })).rejects.toMatchObject({ kind: "forbidden", code: "STORE_ACCOUNT_MISMATCH" });
    const untokened = subscription(owner, { appAccountToken: undefined });
    await confirm.execute(owner, { ...purchase, receipt: untokened });
    await expect(confirm.execute(other, { ...purchase, receipt: untokened })).rejects.toMatchObject({ code: "STORE_ACCOUNT_MISMATCH" });
    expect(await entitlement.execute(other)).toMatchObject({ isPro: false });
  });

  it("refuses data that does not verify: tampered, wrong bundle, wrong environment, untrusted or broken chains", async () => {
    const userId = `store-${randomUUID()}`;
    const refusal = { kind: "validation", code: "STORE_VERIFICATION_FAILED" };
    await expect(confirm.execute(userId, { ...purchase, receipt: tamper(subscription(userId)) })).rejects.toMatchObject(refusal);
    await expect(confirm.execute(userId, { ...purchase, bundleId: "com.other.app", receipt: subscription(userId) })).rejects.toMatchObject(refusal);
    await expect(confirm.execute(userId, { ...purchase, environment: "Production", receipt: subscription(userId) })).rejects.toMatchObject(refusal);
    const otherBundle = createAppStoreSigner(certificates, { bundleId: "com.other.app" });
    await expect(
      confirm.execute(userId, { ...purchase, receipt: otherBundle.signTransaction({ appAccountToken: appAccountTokenOf(userId) }) }),
    ).rejects.toMatchObject(refusal);
    const production = createAppStoreSigner(certificates, { environment: Environment.PRODUCTION });
    await expect(confirm.execute(userId, { ...purchase, receipt: production.signTransaction({}) })).rejects.toMatchObject(refusal);
    for (const broken of [{ untrustedRoot: true }, { shortChain: true }, { expiredLeaf: true }]) {
      const chain = createAppStoreSigner(await createAppStoreCertificates({ root: certificates.root, ...broken }));
      await expect(confirm.execute(userId, { ...purchase, receipt: chain.signTransaction({}) })).rejects.toMatchObject(refusal);
      await expect(notify.execute(chain.signNotification({ notificationType: "TEST" }))).rejects.toMatchObject(refusal);
    }
    // A notification whose nested transaction was altered is refused, though its own signature holds.
    const nested = signer.signNotification({ notificationType: "DID_RENEW", data: { signedTransactionInfo: tamper(subscription(userId)) } });
    await expect(notify.execute(nested)).rejects.toMatchObject(refusal);
    await expect(notify.execute("not a signed payload")).rejects.toMatchObject(refusal);
    expect(await entitlement.execute(userId)).toMatchObject({ isPro: false });
  });
});
