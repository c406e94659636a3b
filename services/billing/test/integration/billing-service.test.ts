import { createServer, type Server } from "node:http";
import { randomBytes, randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { billing as api } from "@study/contracts";
import { AmqpConnection, createEvent, EventPublisher } from "@study/events";
import { createClient } from "@study/grpc";
import { AppError, createLogger } from "@study/platform";
import { migrationSources, startService } from "@study/runtime";
import {
  captureEvents,
  createTestDatabase,
  eventually,
  startStripeServer,
  testRabbitMqUrl,
  uniqueSuffix,
  type EventCapture,
  type StripeServer,
} from "@study/testkit";
import Stripe from "stripe";
import { billingService } from "../../src/service";

/**
 * The billing service as deployed: gRPC, PostgreSQL, RabbitMQ, and Stripe's REST API spoken by the official SDK to the
 * test kit's stand-in, whose signed webhooks reach the service through a forwarder doing what the gateway does
 * (the raw body and the Stripe-Signature header, over HandleProcessorWebhook).
 */
describe("billing service with Stripe (stand-in), PostgreSQL and RabbitMQ", () => {
  let stripe: StripeServer;
  let forwarder: Server;
  let service: Awaited<ReturnType<typeof startService>>;
  let client: ReturnType<typeof createClient<api.BillingServiceClient>>;
  let publisherConnection: AmqpConnection;
  let publisher: EventPublisher;
  let capture: EventCapture;
  const webhookSecret = `whsec_${randomBytes(16).toString("hex")}`;
  const exchange = `test.${uniqueSuffix()}`;

  beforeAll(async () => {
    // The forwarder answers what billing answered: 200, or 400 for a refused signature (Stripe then retries).
    forwarder = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        client.handleProcessorWebhook({ payload: Buffer.concat(chunks), signature: String(request.headers["stripe-signature"] ?? "") }).then(
          () => response.writeHead(200).end(),
          () => response.writeHead(400).end(),
        );
      });
    });
    await new Promise<void>((resolve) => forwarder.listen(0, "127.0.0.1", resolve));
    stripe = await startStripeServer({
      webhook: { url: `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}/`, secret: webhookSecret },
    });
    capture = await captureEvents(testRabbitMqUrl(), exchange, "billing.#");
    service = await startService(billingService, {
      handleSignals: false,
      env: {
        DATABASE_URL: await createTestDatabase("billing_service", migrationSources(billingService)),
        RABBITMQ_URL: testRabbitMqUrl(),
        EVENT_EXCHANGE: exchange,
        GRPC_PORT: "0",
        LOG_LEVEL: "silent",
        STRIPE_API_URL: stripe.url,
        STRIPE_SECRET_KEY: stripe.secretKey,
        STRIPE_WEBHOOK_SECRET: webhookSecret,
      },
    });
    client = createClient(api.BillingServiceClient, api.BillingServiceService, `127.0.0.1:${service.grpcPort}`);
    publisherConnection = new AmqpConnection(testRabbitMqUrl(), createLogger("test", "silent"));
    await publisherConnection.start(5_000);
    publisher = new EventPublisher(publisherConnection, exchange);
  });

  afterAll(async () => {
    client?.close();
    await service?.lifecycle.stop();
    await publisherConnection?.close();
    await capture?.close();
    await stripe?.close();
    await new Promise((resolve) => forwarder?.close(resolve));
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error("expected the call to fail");
      },
      (error: AppError) => ({ kind: error.kind, code: error.code }),
    );

  /** A user registered through the gateway: billing makes the account, code and Stripe customer. */
  async function registered(name: string) {
    const userId = `user-${randomUUID()}`;
    const event = createEvent("identity", userId, { $case: "userRegistered", value: { userId, name, email: `${userId}@example.com` } });
    // Delivered twice (at least once): nothing is made twice.
    await publisher.publish([event, event]);
    const credits = await eventually(async () => {
      const answer = await client.getAccountCredits({ userId });
      return answer.processorCustomerId ? answer : undefined;
    }, 15_000);
    return { userId, customerId: credits.processorCustomerId ?? "" };
  }

  /**
   * The user subscribes on Stripe's checkout page (with the free trial or paying at once, with `card`): answers the
   * subscription once billing wrote it from the webhooks.
   */
  async function subscribed(userId: string, options: { trial?: boolean; card?: string } = {}) {
    const checkout = await client.createCheckoutSession({
      userId,
      plan: "pro_monthly",
      successUrl: "https://app.example/ok",
      cancelUrl: "https://app.example/no",
      trial: options.trial ?? false,
    });
    const { subscription } = stripe.completeCheckout(checkout.sessionId, options.card);
    await eventually(async () => ((await client.getSubscription({ userId })).subscription?.status === subscription.status ? true : undefined));
    return subscription;
  }

  /** The referrer's cash reward once billing has seen the referee's first payment (no pending reason left). */
  const payable = (referrerId: string, rewardId: string) =>
    eventually(async () =>
      (await client.getAccountCredits({ userId: referrerId })).pendingRewards.find((r) => r.id === rewardId && !r.pendingReason),
    );

  it("makes one Stripe customer per user, with an idempotency key, however often registration arrives", async () => {
    const { userId, customerId } = await registered("Ada Lovelace");
    expect(stripe.customer(customerId)).toMatchObject({ email: `${userId}@example.com`, name: "Ada Lovelace", metadata: { userId } });
    await eventually(async () =>
      stripe.requests.filter((r) => r.path === "/v1/customers" && r.idempotencyKey === `customer-${userId}`).length >= 1 ? true : undefined,
    );
    const created = stripe.requests.filter(
      (r) => r.method === "POST" && r.path === "/v1/customers" && r.idempotencyKey === `customer-${userId}` && !r.replayed,
    );
    expect(created).toHaveLength(1);
    expect((await client.getReferralDashboard({ userId })).referralCode).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
  });

  it("turns a referral into credit and the credit into a Stripe payout, settled by payout webhooks", async () => {
    const referrer = await registered("Grace Hopper");
    const friends = [];
    for (const name of ["Ada Lovelace", "Alan Turing", "Edsger Dijkstra", "John Backus"]) friends.push(await registered(name));
    const { referralCode } = await client.getReferralDashboard({ userId: referrer.userId });
    for (const friend of friends) {
      // Each friend subscribes and pays (a real trial, a first payment): their referral pays out.
      await subscribed(friend.userId);
      await client.signUpWithCode({ userId: friend.userId, code: referralCode, emailVerified: true });
      const { rewards } = await client.startTrial({ userId: friend.userId, emailVerified: true });
      const cash = rewards.find((reward) => reward.rewardType === api.RewardType.REWARD_TYPE_CASH);
      await payable(referrer.userId, cash?.id ?? "");
      await client.processReward({ userId: referrer.userId, rewardId: cash?.id ?? "", rewardType: api.RewardType.REWARD_TYPE_CASH });
    }
    expect((await capture.next("billing.referral.code_used.v1")).userId).toBe(referrer.userId);
    expect(await capture.next("billing.reward.processed.v1")).toMatchObject({ userId: referrer.userId });

    const { withdrawal, accountCreditCents } = await client.requestWithdrawal({ userId: referrer.userId, amountCents: 1_000 });
    expect(accountCreditCents).toBe(1_000);
    expect(withdrawal).toMatchObject({ amountCents: 1_000, status: api.WithdrawalStatus.WITHDRAWAL_STATUS_PROCESSING });
    const payoutId = withdrawal?.processorPaymentId ?? "";
    expect(stripe.payout(payoutId)).toMatchObject({ amount: 1_000, currency: "usd", status: "pending", metadata: { withdrawalId: withdrawal?.id } });

    stripe.settlePayout(payoutId);
    await stripe.waitForDelivery("payout.paid");
    const paid = await eventually(async () => {
      const credits = await client.getAccountCredits({ userId: referrer.userId });
      return credits.withdrawals[0]?.status === api.WithdrawalStatus.WITHDRAWAL_STATUS_COMPLETED ? credits : undefined;
    });
    expect(paid.withdrawals[0].completedAt).toBeInstanceOf(Date);
    expect(paid.accountCreditCents).toBe(1_000);

    // A payout the bank returns: FAILED, and the credit comes back.
    stripe.failNextPayout("account_closed");
    const second = await client.requestWithdrawal({ userId: referrer.userId, amountCents: 1_000 });
    expect(second.accountCreditCents).toBe(0);
    stripe.settlePayout(second.withdrawal?.processorPaymentId ?? "");
    const failed = await eventually(async () => {
      const credits = await client.getAccountCredits({ userId: referrer.userId });
      const row = credits.withdrawals.find((w) => w.id === second.withdrawal?.id);
      return row?.status === api.WithdrawalStatus.WITHDRAWAL_STATUS_FAILED ? { credits, row } : undefined;
    });
    expect(failed.row.failureReason).toContain("closed");
    expect(failed.credits.accountCreditCents).toBe(1_000);
  });

  it("leaves a withdrawal PROCESSING when Stripe is down and sends its payout once from the outbox", async () => {
    const referrer = await registered("Barbara Liskov");
    const { referralCode } = await client.getReferralDashboard({ userId: referrer.userId });
    for (const name of ["Ken Thompson", "Dennis Ritchie"]) {
      const friend = await registered(name);
      await subscribed(friend.userId);
      await client.signUpWithCode({ userId: friend.userId, code: referralCode, emailVerified: true });
      const { rewards } = await client.startTrial({ userId: friend.userId, emailVerified: true });
      const cash = rewards.find((reward) => reward.rewardType === api.RewardType.REWARD_TYPE_CASH);
      await payable(referrer.userId, cash?.id ?? "");
      await client.processReward({ userId: referrer.userId, rewardId: cash?.id ?? "", rewardType: api.RewardType.REWARD_TYPE_CASH });
    }
    // The next request fails with a 500: an outage, not a refusal.
    stripe.failNext(1);
    const pending = await client.requestWithdrawal({ userId: referrer.userId, amountCents: 1_000 });
    expect(pending.withdrawal).toMatchObject({ status: api.WithdrawalStatus.WITHDRAWAL_STATUS_PROCESSING, processorPaymentId: undefined });
    // The consumer of withdrawal.requested sends it, with the same idempotency key.
    const sent = await eventually(async () => {
      const credits = await client.getAccountCredits({ userId: referrer.userId });
      return credits.withdrawals.find((w) => w.id === pending.withdrawal?.id && w.processorPaymentId) ?? undefined;
    }, 15_000);
    const created = stripe.requests.filter(
      (r) => r.path === "/v1/payouts" && r.idempotencyKey === `payout-${pending.withdrawal?.id ?? ""}` && r.status === 200 && !r.replayed,
    );
    expect(created).toHaveLength(1);
    expect(sent.status).toBe(api.WithdrawalStatus.WITHDRAWAL_STATUS_PROCESSING);
  });

  it("keeps subscriptions and the entitlement in step with Stripe's webhooks, and gives a free month through Stripe", async () => {
    const referrer = await registered("Frances Allen");
    const { userId, customerId } = await registered("Radia Perlman");
    await expect(
      refusal(
        client.createCheckoutSession({
          userId,
          plan: "gold",
          successUrl: "https://app.example/ok",
          cancelUrl: "https://app.example/no",
          trial: false,
        }),
      ),
    ).resolves.toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
    });
    const checkout = await client.createCheckoutSession({
      userId,
      plan: "pro_monthly",
      successUrl: "https://app.example/ok",
      cancelUrl: "https://app.example/no",
      trial: false,
    });
    expect(checkout.url).toContain(stripe.url);
    expect((await client.getEntitlement({ userId })).entitlement).toMatchObject({ isPro: false, source: "none" });

    const { subscription } = stripe.completeCheckout(checkout.sessionId);
    await stripe.waitForDelivery("customer.subscription.created");
    const pro = await eventually(async () => {
      const { entitlement } = await client.getEntitlement({ userId });
      return entitlement?.isPro ? entitlement : undefined;
    });
    expect(pro).toMatchObject({ source: "stripe", plan: "pro_monthly", inGrace: false });
    expect((await client.getSubscription({ userId })).subscription).toMatchObject({
      processorSubscriptionId: subscription.id,
      processorCustomerId: customerId,
      status: "active",
      plan: "pro_monthly",
      referenceId: "price_pro_monthly",
      seats: 1,
    });
    expect((await client.createPortalSession({ userId, returnUrl: "https://app.example/account" })).url).toContain(stripe.url);
    // Stripe failing: the caller hears STRIPE_ERROR (502 through the gateway), nothing is half-done.
    stripe.failNext(1);
    await expect(refusal(client.createPortalSession({ userId, returnUrl: "https://app.example/account" }))).resolves.toEqual({
      kind: "upstream",
      code: "STRIPE_ERROR",
    });

    // The referee's free month moves the next charge 30 days later, without an invoice now.
    await client.signUpWithCode({ userId, code: (await client.getReferralDashboard({ userId: referrer.userId })).referralCode, emailVerified: true });
    const { rewards } = await client.startTrial({ userId, emailVerified: true });
    const freeMonth = rewards.find((reward) => reward.rewardType === api.RewardType.REWARD_TYPE_FREE_MONTH);
    const periodEnd = (await client.getSubscription({ userId })).subscription?.periodEnd ?? new Date();
    const invoicesBefore = stripe.invoices(subscription.id).length;
    const processed = await client.processReward({ userId, rewardId: freeMonth?.id ?? "", rewardType: api.RewardType.REWARD_TYPE_FREE_MONTH });
    const until = new Date(periodEnd.getTime() + 30 * 86_400_000);
    expect(processed.reward?.subscriptionExtension).toBe(`stripe:${subscription.id} until ${until.toISOString()}`);
    expect(stripe.subscription(subscription.id)).toMatchObject({ status: "trialing", trial_end: Math.floor(until.getTime() / 1000) });
    expect(stripe.invoices(subscription.id)).toHaveLength(invoicesBefore);
    await eventually(async () => ((await client.getSubscription({ userId })).subscription?.status === "trialing" ? true : undefined));

    // A failed renewal: past_due, access kept in grace; a cancellation ends it.
    stripe.failNextInvoice(subscription.id);
    await stripe.waitForDelivery("invoice.payment_failed");
    await eventually(async () => ((await client.getEntitlement({ userId })).entitlement?.inGrace ? true : undefined));
    stripe.refundLatestCharge(subscription.id);
    await stripe.waitForDelivery("charge.refunded");
    stripe.cancelSubscription(subscription.id);
    await stripe.waitForDelivery("customer.subscription.deleted");
    await eventually(async () => ((await client.getEntitlement({ userId })).entitlement?.isPro === false ? true : undefined));
    expect((await client.getSubscription({ userId })).subscription?.status).toBe("canceled");
  });

  it("waits for the referee's first Stripe payment after a trial, and refuses a referee paying with the referrer's card (#29)", async () => {
    const referrer = await registered("Grace Hopper");
    const { referralCode: code } = await client.getReferralDashboard({ userId: referrer.userId });
    // The referrer pays with a Mastercard; the stand-in reports its fingerprint the way Stripe does.
    const own = await subscribed(referrer.userId, { card: "5555555555554444" });
    const method = stripe.paymentMethod(String(own.default_payment_method));
    expect(method).toMatchObject({ object: "payment_method", type: "card", customer: referrer.customerId });
    expect(method?.card).toMatchObject({ brand: "mastercard", last4: "4444", fingerprint: stripe.cardFingerprint("5555555555554444") });
    expect(method?.card?.fingerprint).toMatch(/^[A-Za-z0-9]{16}$/);

    // A second account of the referrer, trialing with the referrer's card: SELF_REFERRAL, no reward.
    const second = await registered("Grace Second");
    await client.signUpWithCode({ userId: second.userId, code, emailVerified: true });
    await subscribed(second.userId, { trial: true, card: "5555 5555 5555 4444" });
    await expect(refusal(client.startTrial({ userId: second.userId, emailVerified: true }))).resolves.toEqual({
      kind: "precondition",
      code: "SELF_REFERRAL",
    });

    // An honest friend: a trial through Stripe Checkout (nothing charged), then the first charge when it ends.
    const friend = await registered("Ada Lovelace");
    await client.signUpWithCode({ userId: friend.userId, code, emailVerified: true });
    await expect(refusal(client.startTrial({ userId: friend.userId, emailVerified: true }))).resolves.toEqual({
      kind: "precondition",
      code: "NO_SUBSCRIPTION",
    });
    const trial = await subscribed(friend.userId, { trial: true });
    expect(trial).toMatchObject({ status: "trialing" });
    const { rewards } = await client.startTrial({ userId: friend.userId, emailVerified: true });
    const cash = rewards.find((reward) => reward.rewardType === api.RewardType.REWARD_TYPE_CASH);
    expect(cash).toMatchObject({ status: api.RewardStatus.REWARD_STATUS_PENDING, pendingReason: "AWAITING_FIRST_PAYMENT" });
    await expect(
      refusal(client.processReward({ userId: referrer.userId, rewardId: cash?.id ?? "", rewardType: api.RewardType.REWARD_TYPE_CASH })),
    ).resolves.toEqual({ kind: "precondition", code: "AWAITING_FIRST_PAYMENT" });
    expect((await client.getReferralDashboard({ userId: referrer.userId })).recentReferrals).toContainEqual(
      expect.objectContaining({ name: "Ada L.", pending: true, pendingReason: "AWAITING_FIRST_PAYMENT" }),
    );

    // The trial ends and the first invoice is charged: invoice.paid with money reaches billing.
    expect(stripe.renewSubscription(trial.id).invoice).toMatchObject({ status: "paid", amount_paid: 999 });
    await payable(referrer.userId, cash?.id ?? "");
    const processed = await client.processReward({ userId: referrer.userId, rewardId: cash?.id ?? "", rewardType: api.RewardType.REWARD_TYPE_CASH });
    expect(processed.accountCreditCents).toBe(500);
  });

  it("refuses webhooks that are unsigned, signed with another secret, tampered or stale, and applies each event once", async () => {
    const payload = JSON.stringify({
      id: `evt_${randomUUID()}`,
      object: "event",
      type: "payout.paid",
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: "po_unknown", object: "payout", metadata: {} } },
    });
    const sdk = new Stripe(stripe.secretKey);
    const signed = (body: string, secret = webhookSecret, timestamp?: number) =>
      sdk.webhooks.generateTestHeaderString({ payload: body, secret, timestamp });
    const refused = { kind: "validation", code: "WEBHOOK_FAILURE" };
    await expect(refusal(client.handleProcessorWebhook({ payload: Buffer.from(payload), signature: "" }))).resolves.toEqual(refused);
    await expect(
      refusal(client.handleProcessorWebhook({ payload: Buffer.from(payload), signature: signed(payload, "whsec_other") })),
    ).resolves.toEqual(refused);
    await expect(
      refusal(client.handleProcessorWebhook({ payload: Buffer.from(payload.replace("po_unknown", "po_other")), signature: signed(payload) })),
    ).resolves.toEqual(refused);
    await expect(
      refusal(
        client.handleProcessorWebhook({
          payload: Buffer.from(payload),
          signature: signed(payload, webhookSecret, Math.floor(Date.now() / 1000) - 3_600),
        }),
      ),
    ).resolves.toEqual(refused);
    const first = await client.handleProcessorWebhook({ payload: Buffer.from(payload), signature: signed(payload) });
    const again = await client.handleProcessorWebhook({ payload: Buffer.from(payload), signature: signed(payload) });
    expect(first).toMatchObject({ eventType: "payout.paid", duplicate: false });
    expect(again).toMatchObject({ eventId: first.eventId, duplicate: true });
  });
});
