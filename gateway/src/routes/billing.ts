import { billing as api } from "@study/contracts";
import { required } from "@study/platform";
import { z } from "zod";
import type { ServiceClients } from "../clients";
import { dataEnvelope, errorEnvelope, route, type RouteSpec } from "../http/api";
import { sendData } from "../http/envelope";
import { iso, isoOrNull, restEnum } from "./shared/mappers";

// --- money -------------------------------------------------------------------------------------------

/**
 * The services count money in integer cents; the REST surface shows currency units (500 → 5, 1250 → 12.5),
 * as the spec's examples do.
 */
export const centsToAmount = (cents: number): number => cents / 100;

/**
 * An amount a client sends, in currency units: a non-negative JSON number with at most two decimals, turned
 * into integer cents. The decimals are read from the number's shortest round-trip notation (what JSON.parse
 * made of the client's text: 10.01 is "10.01", 10.001 is "10.001"), never from `amount * 100`, which is not
 * exact in binary floating point (10.01 * 100 = 1000.9999999999999). Rules about the amount itself (the
 * minimum withdrawal, the credit) are the billing service's.
 */
export const amountSchema = z
  .number()
  .refine((amount) => amount >= 0, "must not be negative")
  .refine((amount) => Number.isSafeInteger(Math.round(amount * 100)), "is too large")
  .refine((amount) => /^\d+(\.\d{1,2})?$/.test(String(amount)), "must have at most two decimals")
  .transform((amount) => Math.round(amount * 100));

// --- enums -------------------------------------------------------------------------------------------

export const referralStatus = restEnum(api.ReferralStatus, "REFERRAL_STATUS");
export const rewardType = restEnum(api.RewardType, "REWARD_TYPE");
export const rewardStatus = restEnum(api.RewardStatus, "REWARD_STATUS");
export const withdrawalStatus = restEnum(api.WithdrawalStatus, "WITHDRAWAL_STATUS");
/** Billing sends the source as a string, not a proto enum: these are the names it uses. */
export const ENTITLEMENT_SOURCES = ["stripe", "store", "referral", "none"] as const;

/** The source of an entitlement as billing names it; anything else is a broken answer. */
export const entitlementSourceJson = (source: string) =>
  required(
    ENTITLEMENT_SOURCES.find((known) => known === source),
    `entitlement source ${JSON.stringify(source)}`,
  );

// --- shared shapes -----------------------------------------------------------------------------------

const nullableDate = z.iso.datetime().nullable();

export const entitlementSchema = z
  .object({
    isPro: z.boolean().describe("The user has Pro access now"),
    source: z
      .enum(ENTITLEMENT_SOURCES)
      .describe("Where the access comes from: a Stripe subscription, an App Store subscription, a referral free month, or none"),
    plan: z.string().nullable().describe("The plan (Stripe) or product id (App Store); null without access"),
    expiresAt: nullableDate.describe("When the access ends unless renewed; null without access"),
    inGrace: z.boolean().describe("A failed renewal is being retried: access continues until the grace period ends"),
  })
  .meta({ id: "Entitlement" });

/** GET /api/entitlements/me: the entitlement and the token the app puts on its App Store purchases. */
const myEntitlementSchema = entitlementSchema
  .extend({
    appAccountToken: z
      .string()
      .describe("Set this UUID as appAccountToken on App Store purchases: the server then knows they are this user's (others are refused)"),
  })
  .meta({ id: "MyEntitlement" });

export function entitlementJson(entitlement: api.Entitlement | undefined) {
  const { isPro, source, plan, expiresAt, inGrace } = required(entitlement, "entitlement in billing reply");
  return { isPro, source: entitlementSourceJson(source), plan: plan ?? null, expiresAt: isoOrNull(expiresAt), inGrace };
}

const subscriptionSchema = z
  .object({
    id: z.string(),
    plan: z.string().describe("The plan name (pro_monthly, pro_yearly)"),
    referenceId: z.string().describe("The processor's price id of the plan"),
    processorCustomerId: z.string(),
    processorSubscriptionId: z.string(),
    status: z.string().describe("As Stripe names it: trialing, active, past_due, canceled, unpaid, incomplete, incomplete_expired, paused"),
    periodStart: nullableDate,
    periodEnd: nullableDate,
    cancelAtPeriodEnd: z.boolean(),
    seats: z.number().int(),
    trialStart: nullableDate,
    trialEnd: nullableDate,
    userId: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "Subscription" });

export function subscriptionJson(subscription: api.Subscription) {
  return {
    id: subscription.id,
    plan: subscription.plan,
    referenceId: subscription.referenceId,
    processorCustomerId: subscription.processorCustomerId,
    processorSubscriptionId: subscription.processorSubscriptionId,
    status: subscription.status,
    periodStart: isoOrNull(subscription.periodStart),
    periodEnd: isoOrNull(subscription.periodEnd),
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
    seats: subscription.seats,
    trialStart: isoOrNull(subscription.trialStart),
    trialEnd: isoOrNull(subscription.trialEnd),
    userId: subscription.userId,
    createdAt: iso(subscription.createdAt, "Subscription.createdAt"),
    updatedAt: iso(subscription.updatedAt, "Subscription.updatedAt"),
  };
}

export const stripeError = { description: "The payment processor failed or refused the call (STRIPE_ERROR)", schema: errorEnvelope };

// --- routes ------------------------------------------------------------------------------------------

/** Where Stripe sends its events. app.ts reads this path's body as raw bytes (before the JSON parser). */
export const PROCESSOR_WEBHOOK_PATH = "/api/billing/webhook";
/** Stripe's event payloads are small; the largest (invoices with many lines) stay far below this. */
export const PROCESSOR_WEBHOOK_BODY_LIMIT = "1mb";

const httpUrl = (what: string) =>
  z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .describe(`${what} (http or https)`);

const checkoutBody = z.strictObject({
  plan: z.string().trim().min(1, "is required").max(100).describe("A configured plan: pro_monthly or pro_yearly"),
  successUrl: httpUrl("Where the processor's checkout page sends the user after paying"),
  cancelUrl: httpUrl("Where it sends the user who gives up"),
  trial: z
    .boolean()
    .optional()
    .describe("Start with the free trial (the first charge when it ends) instead of paying now; only for a user who never subscribed"),
});
const portalBody = z.strictObject({ returnUrl: httpUrl("Where the customer portal's back link goes") });

const webhookAnswer = z.object({
  received: z.literal(true),
  eventId: z.string().describe("The processor's event id"),
  duplicate: z.boolean().describe("The event was received before (a redelivery): nothing new was stored"),
});

const tag = "Billing";
const noProcessorCustomer = "the user has no payment-processor customer yet (PROCESSING_FAILED)";

/**
 * Subscriptions through the payment processor (Stripe), the unified entitlement, and the processor's webhook.
 * Every rule is the billing service's; these routes translate.
 */
export function billingRoutes(clients: ServiceClients): RouteSpec[] {
  return [
    route({
      method: "get",
      path: "/api/entitlements/me",
      tag,
      summary: "The caller's Pro access, one answer across Stripe, the App Store and referral free months",
      auth: true,
      responses: { 200: { description: "The entitlement", schema: dataEnvelope(myEntitlementSchema) } },
      async handler({ userId, res }) {
        const { entitlement, appAccountToken } = await clients.billing.getEntitlement({ userId });
        sendData(res, 200, { ...entitlementJson(entitlement), appAccountToken }, "Entitlement retrieved");
      },
    }),
    route({
      method: "post",
      path: "/api/billing/checkout",
      tag,
      summary: "Start a subscription: a processor checkout page for a plan",
      description: "Open `url` in a browser; once paid, the subscription arrives through the processor's webhook and the entitlement follows.",
      auth: true,
      body: checkoutBody,
      responses: {
        200: { description: "The checkout session", schema: dataEnvelope(z.object({ sessionId: z.string(), url: z.url() })) },
        400: { description: `Invalid input or an unknown plan (VALIDATION_ERROR), or ${noProcessorCustomer}`, schema: errorEnvelope },
        502: stripeError,
      },
      async handler({ userId, body, res }) {
        const session = await clients.billing.createCheckoutSession({
          userId,
          plan: body.plan,
          successUrl: body.successUrl,
          cancelUrl: body.cancelUrl,
          trial: body.trial ?? false,
        });
        sendData(res, 200, { sessionId: session.sessionId, url: session.url }, "Checkout session created");
      },
    }),
    route({
      method: "post",
      path: "/api/billing/portal",
      tag,
      summary: "A processor customer-portal link: manage or cancel the subscription, payment methods, invoices",
      auth: true,
      body: portalBody,
      responses: {
        200: { description: "The portal link", schema: dataEnvelope(z.object({ url: z.url() })) },
        400: { description: `Invalid input (VALIDATION_ERROR), or ${noProcessorCustomer}`, schema: errorEnvelope },
        502: stripeError,
      },
      async handler({ userId, body, res }) {
        const portal = await clients.billing.createPortalSession({ userId, returnUrl: body.returnUrl });
        sendData(res, 200, { url: portal.url }, "Portal session created");
      },
    }),
    route({
      method: "get",
      path: "/api/billing/subscription",
      tag,
      summary: "The caller's newest processor subscription, or null",
      auth: true,
      responses: { 200: { description: "The subscription (null when there is none)", schema: dataEnvelope(subscriptionSchema.nullable()) } },
      async handler({ userId, res }) {
        const { subscription } = await clients.billing.getSubscription({ userId });
        sendData(res, 200, subscription ? subscriptionJson(subscription) : null, subscription ? "Subscription retrieved" : "No subscription");
      },
    }),
    route({
      method: "post",
      path: PROCESSOR_WEBHOOK_PATH,
      tag,
      summary: "The payment processor's webhook (Stripe): payments, subscription changes, failed payments, refunds, payouts",
      description:
        "Not authenticated: the `Stripe-Signature` header is the credential. The body is forwarded byte for byte to the billing " +
        "service, which verifies the signature with the endpoint's signing secret (5 minutes tolerance), stores each event id " +
        "once and applies it asynchronously; the answer comes before the event is applied. Configure this URL as the Stripe " +
        "webhook endpoint.",
      auth: false,
      rawBody: {
        contentType: "application/json",
        schema: z.object({ id: z.string(), type: z.string() }).loose(),
        description: "A Stripe event, exactly as Stripe sent it (read as bytes: the signature covers them)",
      },
      responses: {
        200: { description: "Received (also for a redelivered event)", schema: webhookAnswer },
        400: { description: "Unsigned, stale or tampered payload (WEBHOOK_FAILURE)", schema: errorEnvelope },
        413: { description: `A body over ${PROCESSOR_WEBHOOK_BODY_LIMIT} (PAYLOAD_TOO_LARGE)`, schema: errorEnvelope },
      },
      async handler({ req, res }) {
        const payload: unknown = req.body;
        const reply = await clients.billing.handleProcessorWebhook({
          // No body at all leaves req.body unset: an empty payload, which the signature check refuses.
          payload: Buffer.isBuffer(payload) ? payload : Buffer.alloc(0),
          signature: req.header("stripe-signature") ?? "",
        });
        res.status(200).json({ received: true, eventId: reply.eventId, duplicate: reply.duplicate });
      },
    }),
  ];
}
