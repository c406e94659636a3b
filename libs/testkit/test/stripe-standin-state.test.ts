import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Stripe from "stripe";
import { startStripeStandIn } from "../src/cli/stripe-server";
import { startStripeServer } from "../src/peers/stripe-server";

/**
 * The stand-in `npm start` runs keeps its objects in a file of the data directory: a restart forgets no customer
 * (checkout for a customer made before it used to fail with resource_missing). And the card a customer pays with
 * is reported as Stripe reports it: a PaymentMethod whose `card.fingerprint` is the same for one card number
 * whoever pays with it.
 */
describe("Stripe stand-in state and cards", () => {
  let folder: string;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), "stripe-standin-"));
  });

  afterAll(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  const sdk = (url: string, key: string) => {
    const { port } = new URL(url);
    return new Stripe(key, { host: "127.0.0.1", port: Number(port), protocol: "http", maxNetworkRetries: 0 });
  };

  it("still knows a customer, its subscription and payment method after a restart, and checks it out", async () => {
    const stateFile = join(folder, "stripe.json");
    const first = await startStripeStandIn({ port: 0, stateFile, webhookSecret: "whsec_state" }, {});
    const customer = await sdk(first.server.url, first.serviceEnv.STRIPE_SECRET_KEY).customers.create({ email: "ada@example.com", name: "Ada" });
    const session = await sdk(first.server.url, first.serviceEnv.STRIPE_SECRET_KEY).checkout.sessions.create({
      mode: "subscription",
      customer: customer.id,
      line_items: [{ price: "price_pro_monthly", quantity: 1 }],
      success_url: "https://app.example/ok",
    });
    const { subscription } = first.server.completeCheckout(session.id);
    await first.stop();

    const second = await startStripeStandIn({ port: 0, stateFile, webhookSecret: "whsec_state" }, {});
    try {
      const stripe = sdk(second.server.url, second.serviceEnv.STRIPE_SECRET_KEY);
      expect(await stripe.customers.retrieve(customer.id)).toMatchObject({ id: customer.id, email: "ada@example.com" });
      expect(await stripe.subscriptions.retrieve(subscription.id)).toMatchObject({ status: "active", customer: customer.id });
      const method = await stripe.paymentMethods.retrieve(String(subscription.default_payment_method));
      expect(method.card?.fingerprint).toBe(second.server.cardFingerprint("4242424242424242"));
      // The customer made before the restart checks out again.
      const again = await stripe.checkout.sessions.create({
        mode: "subscription",
        customer: customer.id,
        line_items: [{ price: "price_pro_yearly", quantity: 1 }],
        success_url: "https://app.example/ok",
      });
      expect(second.server.completeCheckout(again.id).subscription).toMatchObject({ customer: customer.id, status: "active" });
    } finally {
      await second.stop();
    }
    // Without a state file, a restart starts empty (the test stacks' behaviour).
    const memory = await startStripeStandIn({ port: 0, webhookSecret: "whsec_state" }, {});
    try {
      await expect(sdk(memory.server.url, memory.serviceEnv.STRIPE_SECRET_KEY).customers.retrieve(customer.id)).rejects.toMatchObject({
        code: "resource_missing",
      });
    } finally {
      await memory.stop();
    }
  });

  it("reports the card paid with as Stripe does: one fingerprint per card number across customers, on the payment method and the charge", async () => {
    const server = await startStripeServer();
    try {
      const stripe = new Stripe(server.secretKey, { ...server.clientConfig, maxNetworkRetries: 0 });
      const pay = async (email: string, card?: string) => {
        const customer = await stripe.customers.create({ email });
        const session = await stripe.checkout.sessions.create({
          mode: "subscription",
          customer: customer.id,
          line_items: [{ price: "price_pro_monthly" }],
          success_url: "https://app.example/ok",
        });
        const { subscription } = server.completeCheckout(session.id, card);
        return { customer, subscription, method: await stripe.paymentMethods.retrieve(String(subscription.default_payment_method)) };
      };
      const ada = await pay("ada@example.com", "5555555555554444");
      const grace = await pay("grace@example.com", "5555 5555 5555 4444");
      const alan = await pay("alan@example.com");
      expect(ada.method).toMatchObject({
        object: "payment_method",
        type: "card",
        customer: ada.customer.id,
        card: { brand: "mastercard", last4: "4444", funding: "credit", exp_month: 12 },
      });
      expect(ada.method.card?.fingerprint).toMatch(/^[A-Za-z0-9]{16}$/);
      expect(grace.method.card?.fingerprint).toBe(ada.method.card?.fingerprint);
      expect(alan.method.card).toMatchObject({ brand: "visa", last4: "4242" });
      expect(alan.method.card?.fingerprint).not.toBe(ada.method.card?.fingerprint);
      const [charge] = server.charges(ada.customer.id);
      expect(charge).toMatchObject({
        payment_method: ada.method.id,
        payment_method_details: { type: "card", card: { fingerprint: ada.method.card?.fingerprint } },
      });
      // Expanded on the subscription, as Stripe allows.
      const expanded = await stripe.subscriptions.retrieve(ada.subscription.id, { expand: ["default_payment_method"] });
      expect(expanded.default_payment_method).toMatchObject({ id: ada.method.id, card: { fingerprint: ada.method.card?.fingerprint } });
      await expect(stripe.paymentMethods.retrieve("pm_unknown")).rejects.toMatchObject({ code: "resource_missing", statusCode: 404 });
      expect(() => server.completeCheckout("cs_missing", "4242")).toThrow();
    } finally {
      await server.close();
    }
  });
});
