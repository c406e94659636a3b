import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { startStripeServer, type StripeEventObject, type StripeServer } from "../src/peers/stripe-server";

/** The Stripe stand-in driven by the official SDK, and its webhooks received and verified as a service would. */

const WEBHOOK_SECRET = "whsec_standin_test_secret";

interface Received {
  payload: string;
  signature: string;
}

/** A webhook endpoint: keeps each raw body with its signature, and answers 500 to the next `failures` deliveries. */
async function startReceiver() {
  const received: Received[] = [];
  let failures = 0;
  const server: Server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (failures > 0) {
        failures -= 1;
        response.writeHead(500).end("down");
        return;
      }
      received.push({ payload: Buffer.concat(chunks).toString(), signature: String(request.headers["stripe-signature"]) });
      response.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/stripe`,
    received,
    failNext(count: number) {
      failures = count;
    },
    /** The raw delivery of an event, as the endpoint got it. */
    rawOf(event: StripeEventObject) {
      const found = received.find((item) => (JSON.parse(item.payload) as { id: string }).id === event.id);
      if (!found) throw new Error(`event ${event.id} not received`);
      return found;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("Stripe stand-in", () => {
  let server: StripeServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let stripe: Stripe;

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startStripeServer({
      secretKey: "sk_test_standin_key_1234",
      webhook: { url: receiver.url, secret: WEBHOOK_SECRET },
      webhookRetryDelaysMs: [20, 40, 80],
    });
    stripe = new Stripe(server.secretKey, { ...server.clientConfig, maxNetworkRetries: 0 });
  });

  afterAll(async () => {
    await server?.close();
    await receiver?.close();
  });

  /** The event as a service reads it: the raw delivery verified and parsed by the SDK (typed by its `type`). */
  const verified = (event: StripeEventObject): Stripe.Event => {
    const { payload, signature } = receiver.rawOf(event);
    return stripe.webhooks.constructEvent(payload, signature, WEBHOOK_SECRET);
  };
  const bySubscription = (id: string) => (event: StripeEventObject) => event.data.object.id === id;

  async function subscribedCustomer(email: string) {
    const customer = await stripe.customers.create({ email, metadata: { userId: email } });
    const session = await stripe.checkout.sessions.create({
      mode: "subscription",
      customer: customer.id,
      client_reference_id: email,
      line_items: [{ price: "price_pro_monthly", quantity: 1 }],
      success_url: "http://app.test/billing/success?session={CHECKOUT_SESSION_ID}",
      cancel_url: "http://app.test/billing/cancel",
      subscription_data: { metadata: { userId: email } },
    });
    const { subscription } = server.completeCheckout(session.id);
    return { customer, session, subscription };
  }

  it("creates and retrieves customers, replaying an idempotent create instead of making a second customer", async () => {
    const customer = await stripe.customers.create(
      { email: "ada@example.com", name: "Ada Lovelace", metadata: { userId: "user-1" } },
      { idempotencyKey: "customer:user-1" },
    );
    expect(customer).toMatchObject({
      object: "customer",
      email: "ada@example.com",
      name: "Ada Lovelace",
      metadata: { userId: "user-1" },
      livemode: false,
    });
    expect(customer.id).toMatch(/^cus_[A-Za-z0-9]{14}$/);
    expect(await stripe.customers.retrieve(customer.id)).toEqual(customer);

    const again = await stripe.customers.create(
      { email: "ada@example.com", name: "Ada Lovelace", metadata: { userId: "user-1" } },
      { idempotencyKey: "customer:user-1" },
    );
    expect(again.id).toBe(customer.id);
    const creates = server.requests.filter((request) => request.idempotencyKey === "customer:user-1");
    expect(creates.map((request) => [request.method, request.path, request.replayed, request.params])).toEqual([
      ["POST", "/v1/customers", false, { email: "ada@example.com", name: "Ada Lovelace", metadata: { userId: "user-1" } }],
      ["POST", "/v1/customers", true, { email: "ada@example.com", name: "Ada Lovelace", metadata: { userId: "user-1" } }],
    ]);
    expect(again.lastResponse.headers["idempotent-replayed"]).toBe("true");

    const reused = await stripe.customers
      .create({ email: "bob@example.com" }, { idempotencyKey: "customer:user-1" })
      .catch((error: unknown) => error);
    expect(reused).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(reused).toMatchObject({ statusCode: 400, type: "StripeIdempotencyError" });
  });

  it("refuses as Stripe does, with the error classes the SDK derives from Stripe's bodies", async () => {
    const wrongKey = await new Stripe("sk_test_wrong_key_9876", { ...server.clientConfig, maxNetworkRetries: 0 }).customers
      .create({ email: "x@example.com" })
      .catch((error: unknown) => error);
    expect(wrongKey).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(wrongKey).toMatchObject({ statusCode: 401, message: "Invalid API Key provided: sk_test_**********9876" });

    const noKey = await fetch(`${server.url}/v1/customers`, { method: "POST" });
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as { error: { type: string; message: string } }).error).toMatchObject({
      type: "invalid_request_error",
      message: expect.stringContaining("You did not provide an API key.") as unknown,
    });

    const unknown = await stripe.rawRequest("POST", "/v1/customers", { email: "x@example.com", nickname: "X" }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(unknown).toMatchObject({ statusCode: 400, code: "parameter_unknown", param: "nickname", message: "Received unknown parameter: nickname" });
    const nested = await stripe
      .rawRequest("POST", "/v1/checkout/sessions", {
        mode: "subscription",
        line_items: [{ price: "price_pro_monthly", colour: "red" }],
      })
      .catch((error: unknown) => error);
    expect(nested).toMatchObject({ code: "parameter_unknown", param: "line_items[0][colour]" });

    const missing = await stripe.payouts.create({ currency: "usd" } as Stripe.PayoutCreateParams).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(missing).toMatchObject({ statusCode: 400, code: "parameter_missing", param: "amount", message: "Missing required param: amount." });

    const noSuchCustomer = await stripe.customers.retrieve("cus_doesnotexist").catch((error: unknown) => error);
    expect(noSuchCustomer).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(noSuchCustomer).toMatchObject({ statusCode: 404, code: "resource_missing", param: "id", message: "No such customer: 'cus_doesnotexist'" });
    expect(noSuchCustomer).toMatchObject({ doc_url: "https://stripe.com/docs/error-codes/resource-missing" });

    const customer = await stripe.customers.create({ email: "price@example.com" });
    const unknownPrice = await stripe.checkout.sessions
      .create({ mode: "subscription", customer: customer.id, line_items: [{ price: "price_gold", quantity: 1 }], success_url: "http://app.test/ok" })
      .catch((error: unknown) => error);
    expect(unknownPrice).toMatchObject({
      statusCode: 400,
      code: "resource_missing",
      param: "line_items[0][price]",
      message: "No such price: 'price_gold'",
    });

    const badEmail = await stripe.customers.create({ email: "not-an-address" }).catch((error: unknown) => error);
    expect(badEmail).toMatchObject({ statusCode: 400, code: "email_invalid", param: "email" });
    const badUrl = await stripe.billingPortal.sessions.create({ customer: customer.id, return_url: "app/account" }).catch((error: unknown) => error);
    expect(badUrl).toMatchObject({ statusCode: 400, code: "url_invalid", param: "return_url" });

    const notModelled = await stripe.customers.create({ email: "x@example.com", tax_exempt: "exempt" }).catch((error: unknown) => error);
    expect(notModelled).toMatchObject({ statusCode: 400, code: "parameter_not_modelled", param: "tax_exempt" });

    const unknownUrl = await stripe.rawRequest("GET", "/v1/coupons/abc").catch((error: unknown) => error);
    expect(unknownUrl).toMatchObject({
      statusCode: 404,
      message: expect.stringContaining("Unrecognized request URL (GET: /v1/coupons/abc)") as unknown,
    });
  });

  it("validates payout amounts and currencies like Stripe", async () => {
    const zero = await stripe.payouts.create({ amount: 0, currency: "usd" }).catch((error: unknown) => error);
    expect(zero).toMatchObject({ statusCode: 400, param: "amount" });
    const fraction = await stripe.rawRequest("POST", "/v1/payouts", { amount: "12.5", currency: "usd" }).catch((error: unknown) => error);
    expect(fraction).toMatchObject({ statusCode: 400, code: "parameter_invalid_integer", param: "amount", message: "Invalid integer: 12.5" });
    const currency = await stripe.payouts.create({ amount: 100, currency: "dollars" }).catch((error: unknown) => error);
    expect(currency).toMatchObject({ statusCode: 400, param: "currency", message: expect.stringContaining("Invalid currency: dollars") as unknown });
  });

  it("runs a checkout to a subscription, sending signed webhooks that constructEvent accepts only with the right secret", async () => {
    const customer = await stripe.customers.create({ email: "grace@example.com" });
    const session = await stripe.checkout.sessions.create({
      mode: "subscription",
      customer: customer.id,
      client_reference_id: "user-2",
      line_items: [{ price: "price_pro_monthly", quantity: 1 }],
      success_url: "http://app.test/billing/success?session={CHECKOUT_SESSION_ID}",
      cancel_url: "http://app.test/billing/cancel",
      subscription_data: { metadata: { userId: "user-2" } },
      metadata: { userId: "user-2" },
    });
    expect(session).toMatchObject({
      object: "checkout.session",
      mode: "subscription",
      status: "open",
      payment_status: "unpaid",
      customer: customer.id,
      client_reference_id: "user-2",
      amount_total: 999,
      currency: "usd",
      subscription: null,
      url: `${server.url}/_standin/checkout/${session.id}`,
    });
    expect(session.id).toMatch(/^cs_test_/);
    expect(server.requests.at(-1)?.params).toMatchObject({
      line_items: [{ price: "price_pro_monthly", quantity: "1" }],
      subscription_data: { metadata: { userId: "user-2" } },
    });

    // The customer "pays" on the hosted page: visiting it completes the session and goes back to success_url.
    const paid = await fetch(session.url ?? "", { redirect: "manual" });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`http://app.test/billing/success?session=${session.id}`);

    const completed = await server.waitForDelivery("checkout.session.completed", (event) => event.data.object.id === session.id);
    const completedEvent = verified(completed);
    if (completedEvent.type !== "checkout.session.completed") throw new Error(completedEvent.type);
    const sessionObject = completedEvent.data.object;
    expect(sessionObject).toMatchObject({ status: "complete", payment_status: "paid", client_reference_id: "user-2", url: null });
    const subscriptionId = String(sessionObject.subscription);
    const created = await server.waitForDelivery("customer.subscription.created", bySubscription(subscriptionId));
    const createdEvent = verified(created);
    if (createdEvent.type !== "customer.subscription.created") throw new Error(createdEvent.type);
    const subscription = createdEvent.data.object;
    expect(subscription).toMatchObject({
      object: "subscription",
      status: "active",
      customer: customer.id,
      metadata: { userId: "user-2" },
      cancel_at_period_end: false,
    });
    expect(subscription).not.toHaveProperty("current_period_end");
    const item = subscription.items.data[0];
    expect(item.price.id).toBe("price_pro_monthly");
    const start = new Date(item.current_period_start * 1000);
    const end = new Date(item.current_period_end * 1000);
    expect(end.getUTCMonth()).toBe((start.getUTCMonth() + 1) % 12);
    const invoicePaid = await server.waitForDelivery("invoice.paid", (event) => event.data.object.id === sessionObject.invoice);
    expect(invoicePaid.data.object).toMatchObject({
      status: "paid",
      amount_paid: 999,
      billing_reason: "subscription_create",
      customer: customer.id,
      parent: { type: "subscription_details", subscription_details: { subscription: subscriptionId, metadata: { userId: "user-2" } } },
    });

    for (const event of [completed, created, invoicePaid]) {
      expect(event).toMatchObject({
        object: "event",
        api_version: Stripe.API_VERSION,
        livemode: false,
        request: { id: null, idempotency_key: null },
      });
      expect(event.id).toMatch(/^evt_/);
      const { payload, signature } = receiver.rawOf(event);
      expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      const parsed = stripe.webhooks.constructEvent(payload, signature, WEBHOOK_SECRET);
      expect(parsed.id).toBe(event.id);
      expect(parsed.type).toBe(event.type);
      expect(() => stripe.webhooks.constructEvent(payload, signature, "whsec_someone_else")).toThrow(Stripe.errors.StripeSignatureVerificationError);
      expect(() => stripe.webhooks.constructEvent(payload.replace('"livemode": false', '"livemode": true'), signature, WEBHOOK_SECRET)).toThrow(
        Stripe.errors.StripeSignatureVerificationError,
      );
    }

    const retrieved = await stripe.checkout.sessions.retrieve(session.id, { expand: ["subscription"] });
    expect(retrieved.status).toBe("complete");
    expect((retrieved.subscription as Stripe.Subscription).id).toBe(subscriptionId);
    expect(await stripe.subscriptions.retrieve(subscriptionId)).toMatchObject({
      id: subscriptionId,
      status: "active",
      latest_invoice: sessionObject.invoice,
    });
  });

  it("gives a free month through trial_end: the subscription trials until then, its period ends there, and an update is sent", async () => {
    const { subscription } = await subscribedCustomer("trial@example.com");
    const periodEnd = subscription.items.data[0].current_period_end;
    const freeUntil = periodEnd + 30 * 86_400;
    const updated = await stripe.subscriptions.update(
      subscription.id,
      { trial_end: freeUntil, proration_behavior: "none", metadata: { freeMonth: "referral-7" } },
      { idempotencyKey: "free-month:referral-7" },
    );
    expect(updated).toMatchObject({
      status: "trialing",
      trial_end: freeUntil,
      billing_cycle_anchor: freeUntil,
      metadata: { userId: "trial@example.com", freeMonth: "referral-7" },
    });
    expect(updated.items.data[0].current_period_end).toBe(freeUntil);

    const event = await server.waitForDelivery(
      "customer.subscription.updated",
      (candidate) => candidate.data.object.id === subscription.id && candidate.data.object.status === "trialing",
    );
    expect(event.data.previous_attributes).toMatchObject({ status: "active", trial_end: null, metadata: { userId: "trial@example.com" } });
    expect(event.request).toEqual({ id: server.requests.at(-1)?.requestId, idempotency_key: "free-month:referral-7" });
    // No charge for the free month.
    expect(server.invoices(subscription.id)).toHaveLength(1);

    const past = await stripe.subscriptions.update(subscription.id, { trial_end: 1_000_000 }).catch((error: unknown) => error);
    expect(past).toMatchObject({ statusCode: 400, param: "trial_end" });
    const badBehavior = await stripe
      .rawRequest("POST", `/v1/subscriptions/${subscription.id}`, { proration_behavior: "sometimes" })
      .catch((error: unknown) => error);
    expect(badBehavior).toMatchObject({ statusCode: 400, param: "proration_behavior" });
    const missing = await stripe.subscriptions.retrieve("sub_missing").catch((error: unknown) => error);
    expect(missing).toMatchObject({ statusCode: 404, code: "resource_missing", message: "No such subscription: 'sub_missing'" });
  });

  it("fails, renews, refunds and cancels a subscription through the controls (in process and over HTTP)", async () => {
    const { customer, subscription } = await subscribedCustomer("cycle@example.com");
    const failed = server.failNextInvoice(subscription.id);
    expect(failed.subscription.status).toBe("past_due");
    const paymentFailed = await server.waitForDelivery("invoice.payment_failed", (event) => event.data.object.id === failed.invoice.id);
    expect(paymentFailed.data.object).toMatchObject({ status: "open", attempt_count: 1, amount_paid: 0, billing_reason: "subscription_cycle" });
    await server.waitForDelivery(
      "customer.subscription.updated",
      (event) => bySubscription(subscription.id)(event) && event.data.object.status === "past_due",
    );

    const renewed = await fetch(`${server.url}/_standin/subscriptions/${subscription.id}/renew`, { method: "POST" });
    expect(renewed.status).toBe(200);
    expect(((await renewed.json()) as { subscription: Stripe.Subscription }).subscription.status).toBe("active");
    await server.waitForDelivery("invoice.paid", (event) => event.data.object.id === failed.invoice.id);

    const refunded = server.refundLatestCharge(subscription.id);
    expect(refunded).toMatchObject({ customer: customer.id, refunded: true, amount_refunded: 999 });
    const refundEvent = await server.waitForDelivery("charge.refunded", (event) => event.data.object.id === refunded.id);
    expect(refundEvent.data.previous_attributes).toEqual({ amount_refunded: 0, refunded: false });

    const canceled = await fetch(`${server.url}/_standin/subscriptions/${subscription.id}/cancel`, { method: "POST" });
    expect(canceled.status).toBe(200);
    const deleted = await server.waitForDelivery("customer.subscription.deleted", bySubscription(subscription.id));
    expect(deleted.data.object).toMatchObject({ status: "canceled", cancellation_details: { reason: "cancellation_requested" } });
    expect((await stripe.subscriptions.retrieve(subscription.id)).status).toBe("canceled");

    const portal = await stripe.billingPortal.sessions.create({ customer: customer.id, return_url: "http://app.test/account" });
    expect(portal).toMatchObject({
      object: "billing_portal.session",
      customer: customer.id,
      return_url: "http://app.test/account",
      url: `${server.url}/_standin/billing_portal/${portal.id}`,
    });
    expect((await fetch(portal.url)).status).toBe(200);
  });

  it("settles payouts as paid by default and as failed when told to, with their webhooks", async () => {
    const payout = await stripe.payouts.create(
      { amount: 1500, currency: "usd", description: "Referral rewards", metadata: { withdrawalId: "w-1" } },
      { idempotencyKey: "withdrawal:w-1" },
    );
    expect(payout).toMatchObject({
      object: "payout",
      status: "pending",
      amount: 1500,
      currency: "usd",
      metadata: { withdrawalId: "w-1" },
      failure_code: null,
    });
    expect(payout.id).toMatch(/^po_/);

    server.failNextPayout("account_closed");
    const failing = await stripe.payouts.create({ amount: 700, currency: "EUR", metadata: { withdrawalId: "w-2" } });
    expect(failing.currency).toBe("eur");

    expect(server.settlePayouts().map((settled) => [settled.id, settled.status])).toEqual([
      [payout.id, "paid"],
      [failing.id, "failed"],
    ]);
    const paid = await server.waitForDelivery("payout.paid", (event) => event.data.object.id === payout.id);
    expect(paid.data.object).toMatchObject({ status: "paid", metadata: { withdrawalId: "w-1" } });
    const failedEvent = await server.waitForDelivery("payout.failed", (event) => event.data.object.id === failing.id);
    expect(failedEvent.data.object).toMatchObject({
      status: "failed",
      failure_code: "account_closed",
      failure_message: "The bank account has been closed.",
    });
    expect(await stripe.payouts.retrieve(failing.id)).toMatchObject({ status: "failed", failure_code: "account_closed" });
  });

  it("answers injected 500s and dropped connections, and retries a failed webhook delivery with backoff", async () => {
    server.failNext(1);
    const failed = await stripe.customers.create({ email: "down@example.com" }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(failed).toMatchObject({ statusCode: 500, type: "StripeAPIError" });
    expect(server.requests.at(-1)?.status).toBe(500);

    // The SDK's own retry (same Idempotency-Key) goes through after one failure: one customer, not two.
    const retrying = new Stripe(server.secretKey, { ...server.clientConfig, maxNetworkRetries: 1 });
    server.failNext(1);
    const before = server.requests.length;
    const customer = await retrying.customers.create({ email: "retry@example.com" });
    const attempts = server.requests.slice(before);
    expect(attempts.map((request) => request.status)).toEqual([500, 200]);
    expect(attempts[0].idempotencyKey).toBe(attempts[1].idempotencyKey);
    expect(server.customer(customer.id)?.email).toBe("retry@example.com");

    // A dropped connection is retried once by the SDK even with maxNetworkRetries 0: two make it surface.
    server.failNext(2, "connection");
    const dropped = await stripe.customers.create({ email: "dropped@example.com" }).catch((error: unknown) => error);
    expect(dropped).toBeInstanceOf(Stripe.errors.StripeConnectionError);

    receiver.failNext(2);
    const { session } = await subscribedCustomer("webhook-retry@example.com");
    await server.waitForDelivery("checkout.session.completed", (event) => event.data.object.id === session.id);
    const delivery = server.deliveries.find((candidate) => candidate.event.data.object.id === session.id);
    expect(delivery?.attempts.map((attempt) => attempt.status)).toEqual([500, 500, 200]);
    expect(delivery?.outcome).toBe("delivered");
    await server.webhooksIdle();
  });
});
