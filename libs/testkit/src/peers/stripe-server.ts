import { createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { dirname } from "node:path";
import type { AddressInfo } from "node:net";
import express, { type NextFunction, type Request, type Response } from "express";
import type Stripe from "stripe";

/**
 * A local Stripe on loopback that speaks Stripe's REST API (`/v1/…`) for the calls a subscription + payout
 * integration makes, strictly, so the official `stripe` SDK can be pointed at it:
 * `new Stripe(server.secretKey, { ...server.clientConfig })` (host 127.0.0.1, its port, protocol http).
 *
 * API: `POST /v1/customers`, `GET /v1/customers/:id`, `POST /v1/checkout/sessions` (mode=subscription),
 * `POST /v1/billing_portal/sessions`, `GET|POST /v1/subscriptions/:id`, `GET /v1/payment_methods/:id`,
 * `POST /v1/payouts`, `GET /v1/payouts/:id`. The card a customer pays with on the hosted checkout page (Stripe's
 * test card 4242 4242 4242 4242 unless another number is given) becomes a PaymentMethod attached to the customer
 * and the subscription's `default_payment_method`, with the `card.fingerprint` Stripe reports: one card number has
 * one fingerprint across all customers of the account (16 characters, as Stripe writes them).
 *
 * With `stateFile`, the objects (customers, sessions, subscriptions, invoices, charges, payment methods, payouts,
 * saved idempotent results) are written to that file after every change and read back at start: a restarted
 * stand-in still knows them. Request, event and delivery logs are not kept.
 * Objects have the shapes of the API version the SDK pins (`Stripe.API_VERSION`, 2026-10-28 at stripe 23.1; e.g.
 * current_period_start/end on the subscription items, an invoice's subscription under
 * `parent.subscription_details`, no `invoice` on charges), taken from stripe/openapi's fixtures and the SDK's types.
 *
 * Strict as Stripe is: `Authorization: Bearer <secretKey>` (401 otherwise), form-encoded bodies in bracket notation,
 * unknown parameters `parameter_unknown`, missing ones `parameter_missing`, bad integers/enums/booleans refused,
 * unknown ids `resource_missing` (404 for the path's id, 400 for an id given as a parameter), unknown URLs 404,
 * every error in Stripe's body `{error: {type, code, param, message, doc_url, request_log_url}}` so the SDK raises
 * the matching class. A parameter Stripe accepts but this stand-in does not model is refused with a 400 saying so
 * (code `parameter_not_modelled`, not Stripe's) rather than silently ignored. `Idempotency-Key` as Stripe keeps it:
 * the outcome of an executed POST is saved (validation failures are not) and replayed for the same key and
 * parameters (`Idempotent-Replayed: true`); the same key with other parameters or on another endpoint is 400
 * `idempotency_error`. Note that the SDK keys every POST itself, and retries 5xx (maxNetworkRetries, default 2)
 * and retries a dropped connection once even with maxNetworkRetries 0.
 *
 * What Stripe does on its own (a customer paying on the hosted page, renewals, refunds, payouts reaching the bank)
 * is done through the controls, in-process on the returned handle or over HTTP under `/_standin/…` for another
 * process. Each change sends the webhook events Stripe sends for it (only these types:
 * checkout.session.completed, customer.subscription.created|updated|deleted, invoice.paid, invoice.payment_failed,
 * charge.refunded, payout.paid, payout.failed), signed as Stripe signs (`Stripe-Signature: t=…,v1=…`,
 * HMAC-SHA256 of `${t}.${body}` with the endpoint secret), one at a time in the order they happened (Stripe does not
 * promise an order; this makes tests deterministic), a non-2xx answer or a connection error retried with backoff.
 */

export type StripeInterval = "day" | "week" | "month" | "year";

export interface StripePriceInput {
  id: string;
  /** In the currency's smallest unit. */
  unitAmount: number;
  interval: StripeInterval;
  currency?: string;
  /** The product's id (default `prod_<price id>`). */
  product?: string;
  nickname?: string;
}

export const DEFAULT_STRIPE_PRICES: readonly StripePriceInput[] = [
  { id: "price_pro_monthly", unitAmount: 999, interval: "month", currency: "usd", product: "prod_study_pro", nickname: "Pro monthly" },
  { id: "price_pro_yearly", unitAmount: 9999, interval: "year", currency: "usd", product: "prod_study_pro", nickname: "Pro yearly" },
];

export interface StripeWebhookEndpoint {
  url: string;
  /** The endpoint's signing secret (`whsec_…`). */
  secret: string;
}

export interface StripeServerOptions {
  /** The only key accepted (default `sk_test_standin`); must be a test secret key (`sk_test_…`). */
  secretKey?: string;
  /** The prices checkout sessions may use (default DEFAULT_STRIPE_PRICES). */
  prices?: readonly StripePriceInput[];
  /** Where events are sent; can be set later with `setWebhook`. */
  webhook?: StripeWebhookEndpoint;
  /** Waits before each retry of a failed delivery (default [100, 400, 1600]: four attempts at most). */
  webhookRetryDelaysMs?: readonly number[];
  /** Port on 127.0.0.1 (default 0: any free one). */
  port?: number;
  /** Base of the hosted pages' URLs (checkout, portal) when the browser reaches the server another way. */
  publicUrl?: string;
  /** Payouts reach the bank by themselves this long after creation (default: only when settled by a control). */
  payoutSettleDelayMs?: number;
  /** The events' api_version (default the SDK's pinned `Stripe.API_VERSION`). */
  apiVersion?: string;
  /** The clock, in ms since the epoch (default Date.now): timestamps, periods, trial_end checks. */
  now?: () => number;
  /** A JSON file keeping the stand-in's objects across restarts (read at start, written after each change). */
  stateFile?: string;
}

/** Stripe's test card numbers the checkout page knows by brand and funding; any other number is a Visa credit card. */
const TEST_CARDS: Record<string, { brand: string; funding: string }> = {
  "4242424242424242": { brand: "visa", funding: "credit" },
  "4000056655665556": { brand: "visa", funding: "debit" },
  "5555555555554444": { brand: "mastercard", funding: "credit" },
  "2223003122003222": { brand: "mastercard", funding: "credit" },
  "5200828282828210": { brand: "mastercard", funding: "debit" },
  "378282246310005": { brand: "amex", funding: "credit" },
  "6011111111111117": { brand: "discover", funding: "credit" },
};
export const DEFAULT_TEST_CARD = "4242424242424242";

export type StripeFailureKind = "api_error" | "connection";

export interface StripeRequestRecord {
  requestId: string;
  method: string;
  path: string;
  /** The parsed form body (POST) or query (GET), as Stripe reads them (strings, nested objects, arrays). */
  params: Record<string, unknown>;
  idempotencyKey?: string;
  stripeVersion?: string;
  /** The answer's status; 0 when the connection was dropped on purpose. */
  status: number;
  /** The answer was a saved idempotent one. */
  replayed: boolean;
}

/** An event as Stripe builds it. */
export interface StripeEventObject {
  id: string;
  object: "event";
  api_version: string;
  created: number;
  data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: StripeEventType;
}

export type StripeEventType =
  | "checkout.session.completed"
  | "customer.subscription.created"
  | "customer.subscription.updated"
  | "customer.subscription.deleted"
  | "invoice.paid"
  | "invoice.payment_failed"
  | "charge.refunded"
  | "payout.paid"
  | "payout.failed";

export interface StripeDeliveryAttempt {
  at: number;
  /** The endpoint's answer; absent when the connection failed. */
  status?: number;
  error?: string;
}

export interface StripeDelivery {
  event: StripeEventObject;
  /** The exact body sent (what the signature covers). */
  payload: string;
  attempts: StripeDeliveryAttempt[];
  outcome: "pending" | "delivered" | "failed";
}

export interface StripeServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  secretKey: string;
  /** For `new Stripe(secretKey, { ...clientConfig })`. */
  clientConfig: { host: string; port: number; protocol: "http" };
  /** Every /v1 request, in order. */
  requests: StripeRequestRecord[];
  /** Every event created, in order (sent or not). */
  events: StripeEventObject[];
  /** One entry per event sent to the webhook endpoint, with its attempts. */
  deliveries: StripeDelivery[];
  setWebhook(webhook: StripeWebhookEndpoint | undefined): void;
  /**
   * The first event of this type (and matching `match`) delivered with a 2xx answer, already or when it is; rejects
   * after `timeoutMs` (default 5000) or when its delivery gives up.
   */
  waitForDelivery(type: StripeEventType, match?: (event: StripeEventObject) => boolean, timeoutMs?: number): Promise<StripeEventObject>;
  /** Resolves when every event created so far has been delivered or given up. */
  webhooksIdle(): Promise<void>;
  /** The next `count` /v1 requests (default 1) get a 500 `api_error`, or a dropped connection. */
  failNext(count?: number, kind?: StripeFailureKind): void;
  customer(id: string): Stripe.Customer | undefined;
  checkoutSession(id: string): Stripe.Checkout.Session | undefined;
  subscription(id: string): Stripe.Subscription | undefined;
  /** The invoices of a subscription, oldest first. */
  invoices(subscriptionId: string): Stripe.Invoice[];
  /** The charges of a customer, oldest first. */
  charges(customerId: string): Stripe.Charge[];
  paymentMethod(id: string): Stripe.PaymentMethod | undefined;
  /** The fingerprint Stripe reports for a card number (the same for every customer paying with it). */
  cardFingerprint(cardNumber: string): string;
  payout(id: string): Stripe.Payout | undefined;
  /**
   * The customer pays on the hosted page with `card` (a card number, default DEFAULT_TEST_CARD): the card becomes the
   * subscription's default payment method, the subscription starts (trialing with subscription_data.trial_period_days,
   * else active for one interval, its first invoice paid), the session completes. Events:
   * checkout.session.completed, customer.subscription.created, invoice.paid.
   */
  completeCheckout(
    sessionId: string,
    card?: string,
  ): { session: Stripe.Checkout.Session; subscription: Stripe.Subscription; invoice: Stripe.Invoice };
  /**
   * The current period ends: a subscription set to cancel at period end is canceled (customer.subscription.deleted);
   * a past_due one pays its open invoice; otherwise the next period is invoiced and paid. Events: invoice.paid,
   * customer.subscription.updated.
   */
  renewSubscription(subscriptionId: string): { subscription: Stripe.Subscription; invoice?: Stripe.Invoice };
  /** The next period's invoice fails: invoice.payment_failed, the subscription past_due (customer.subscription.updated). */
  failNextInvoice(subscriptionId: string): { subscription: Stripe.Subscription; invoice: Stripe.Invoice };
  /** Refunds the latest charge of a customer (or a subscription's customer), fully by default: charge.refunded. */
  refundLatestCharge(customerOrSubscriptionId: string, amount?: number): Stripe.Charge;
  /** Cancels at once: customer.subscription.deleted. */
  cancelSubscription(subscriptionId: string): Stripe.Subscription;
  /** The next payout created fails when it settles, with this failure code (default `could_not_process`). */
  failNextPayout(failureCode?: StripePayoutFailureCode): void;
  /** A pending payout reaches the bank: paid (payout.paid) or, if it was marked to fail or `failureCode` is given, failed (payout.failed). */
  settlePayout(payoutId: string, failureCode?: StripePayoutFailureCode): Stripe.Payout;
  /** Settles every pending payout, oldest first. */
  settlePayouts(): Stripe.Payout[];
  close(): Promise<void>;
}

/** Stripe's payout failure codes and their messages (docs: "Payout failures"). */
export const STRIPE_PAYOUT_FAILURES = {
  account_closed: "The bank account has been closed.",
  account_frozen: "The bank account has been frozen.",
  bank_account_restricted: "The bank account has restrictions on either the type, or the number, of payouts allowed.",
  could_not_process: "The bank could not process this payout.",
  declined: "The bank has declined this transfer. Please contact the bank before retrying.",
  insufficient_funds: "Your Stripe account has insufficient funds to cover the payout.",
  invalid_account_number: "The routing number seems correct, but the account number is invalid.",
  no_account: "The bank account details on file are probably incorrect. No bank account could be located with those details.",
} as const;
export type StripePayoutFailureCode = keyof typeof STRIPE_PAYOUT_FAILURES;

/** Currencies a payout may be made in (ISO 4217, lower case as Stripe writes them); a subset of Stripe's list. */
const CURRENCIES = new Set(
  "usd eur gbp chf cad aud nzd jpy sek nok dkk pln czk huf ron bgn hkd sgd inr brl mxn zar aed ils krw thb myr php idr".split(" "),
);

// ---------------------------------------------------------------------------------------------------------------
// Errors

interface StripeErrorFields {
  status: number;
  type: "invalid_request_error" | "api_error" | "idempotency_error" | "card_error";
  message: string;
  code?: string;
  param?: string;
}

class StripeApiError extends Error {
  constructor(readonly fields: StripeErrorFields) {
    super(fields.message);
  }
}

const invalid = (message: string, param?: string, code?: string, status = 400): never => {
  throw new StripeApiError({ status, type: "invalid_request_error", message, param, code });
};
const missingParam = (param: string): never => invalid(`Missing required param: ${param}.`, param, "parameter_missing");
const noSuch = (kind: string, id: string, param: string, status: number): never =>
  invalid(`No such ${kind}: '${id}'`, param, "resource_missing", status);

function errorBody(fields: StripeErrorFields, requestId: string, created: number) {
  return {
    error: {
      ...(fields.code ? { code: fields.code, doc_url: `https://stripe.com/docs/error-codes/${fields.code.replace(/_/g, "-")}` } : {}),
      message: fields.message,
      ...(fields.param ? { param: fields.param } : {}),
      request_log_url: `https://dashboard.stripe.com/test/logs/${requestId}?t=${created}`,
      type: fields.type,
    },
  };
}

function checkEmail(email: string, param: string) {
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) invalid(`Invalid email address: ${email}`, param, "email_invalid");
}

/** An absolute http(s) URL; Checkout's `{CHECKOUT_SESSION_ID}` template is allowed in it. */
function checkUrl(url: string, param: string) {
  const candidate = url.replaceAll("{CHECKOUT_SESSION_ID}", "cs_test");
  const parsed = URL.canParse(candidate) ? new URL(candidate) : undefined;
  if (parsed?.protocol !== "http:" && parsed?.protocol !== "https:") invalid("Not a valid URL", param, "url_invalid");
}

/** Stripe shows a wrong key with its prefix and last four characters only. */
const redactedKey = (key: string) => {
  const prefix = /^[a-z]+_(test|live)_/.exec(key)?.[0] ?? "";
  return `${prefix}${"*".repeat(Math.max(0, key.length - prefix.length - 4))}${key.slice(-4)}`;
};

// ---------------------------------------------------------------------------------------------------------------
// Parameters: Stripe's form encoding, checked against what each endpoint accepts

type ParamSpec =
  | { type: "string"; maxLength?: number; enum?: readonly string[] }
  | { type: "integer"; min?: number; max?: number }
  | { type: "boolean" }
  | { type: "metadata" }
  | { type: "timestamp_or_now" }
  | { type: "expand" }
  | { type: "object"; fields: Record<string, ParamSpec>; required?: readonly string[] }
  | { type: "array"; items: ParamSpec; maxItems?: number };

interface EndpointSpec {
  fields: Record<string, ParamSpec>;
  required?: readonly string[];
  /** Top-level parameters Stripe accepts on this endpoint that the stand-in does not model. */
  notModelled?: readonly string[];
  /** What `expand` may name. */
  expandable?: readonly string[];
}

const METADATA: ParamSpec = { type: "metadata" };
const words = (text: string) => text.trim().split(/\s+/);
const EXPAND: ParamSpec = { type: "expand" };
/** Emptied parameters: Stripe reads `name=` as "unset", which only some parameters allow. */
const UNSET = null;

/** qs-style objects with only index keys are arrays in Stripe's encoding (`line_items[0][price]`). */
const asArray = (value: unknown): unknown[] | undefined => {
  if (Array.isArray(value)) return value;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value);
    if (entries.length > 0 && entries.every(([key]) => /^\d+$/.test(key))) {
      return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, item]) => item);
    }
  }
  return undefined;
};
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function checkValue(value: unknown, spec: ParamSpec, path: string): unknown {
  if (value === "" && spec.type !== "string" && spec.type !== "metadata") return UNSET;
  switch (spec.type) {
    case "string": {
      if (typeof value !== "string") return invalid(`Invalid string: ${JSON.stringify(value)}`, path);
      if (spec.maxLength !== undefined && value.length > spec.maxLength) {
        return invalid(`Invalid string: ${value.slice(0, 20)}...; must be at most ${spec.maxLength} characters`, path, "string_length_too_long");
      }
      if (spec.enum && !spec.enum.includes(value)) {
        const choices = spec.enum.length > 1 ? `${spec.enum.slice(0, -1).join(", ")}, or ${spec.enum[spec.enum.length - 1]}` : spec.enum[0];
        return invalid(`Invalid ${path}: must be one of ${choices}`, path);
      }
      return value;
    }
    case "integer": {
      if (typeof value !== "string" || !/^-?\d+$/.test(value)) return invalid(`Invalid integer: ${String(value)}`, path, "parameter_invalid_integer");
      const number = Number(value);
      if (spec.min !== undefined && number < spec.min) return invalid(`This value must be greater than or equal to ${spec.min}.`, path);
      if (spec.max !== undefined && number > spec.max) return invalid(`This value must be less than or equal to ${spec.max}.`, path);
      return number;
    }
    case "boolean":
      if (value !== "true" && value !== "false") return invalid(`Invalid boolean: ${String(value)}`, path);
      return value === "true";
    case "timestamp_or_now":
      if (value === "now") return "now";
      if (typeof value !== "string" || !/^\d+$/.test(value)) return invalid(`Invalid timestamp: must be an integer Unix timestamp or "now".`, path);
      return Number(value);
    case "expand": {
      const items = asArray(value);
      if (!items || !items.every((item) => typeof item === "string")) return invalid(`Invalid array`, path);
      return items;
    }
    case "metadata": {
      if (value === "") return UNSET;
      if (!isRecord(value)) return invalid(`Invalid object`, path);
      const entries = Object.entries(value);
      if (entries.length > 50) return invalid("You can specify up to 50 keys.", path);
      for (const [key, item] of entries) {
        if (typeof item !== "string")
          return invalid(`Metadata values can only be strings, but the value for key '${key}' is not.`, `${path}[${key}]`);
        if (key.length > 40) return invalid(`Metadata keys can have up to 40 characters, but '${key}' has ${key.length}.`, `${path}[${key}]`);
        if (item.length > 500)
          return invalid(`Metadata values can have up to 500 characters, but the value for '${key}' has ${item.length}.`, `${path}[${key}]`);
      }
      return Object.fromEntries(entries);
    }
    case "object": {
      if (!isRecord(value)) return invalid(`Invalid object`, path);
      return checkFields(value, spec.fields, spec.required ?? [], [], path);
    }
    case "array": {
      const items = asArray(value);
      if (!items) return invalid(`Invalid array`, path);
      if (spec.maxItems !== undefined && items.length > spec.maxItems) return invalid(`You may only specify ${spec.maxItems} items.`, path);
      return items.map((item, index) => checkValue(item, spec.items, `${path}[${index}]`));
    }
  }
}

function checkFields(
  params: Record<string, unknown>,
  fields: Record<string, ParamSpec>,
  required: readonly string[],
  notModelled: readonly string[],
  prefix: string,
): Record<string, unknown> {
  const name = (key: string) => (prefix ? `${prefix}[${key}]` : key);
  const checked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    const spec = fields[key];
    if (!spec) {
      if (notModelled.includes(key)) {
        invalid(
          `Stripe accepts '${key}' here but the Stripe stand-in does not model it: model it in libs/testkit/src/peers/stripe-server.ts, or do not send it.`,
          key,
          "parameter_not_modelled",
        );
      }
      invalid(`Received unknown parameter: ${name(key)}`, name(key), "parameter_unknown");
    }
    checked[key] = checkValue(value, spec, name(key));
  }
  for (const key of required) {
    if (!(key in params)) missingParam(name(key));
    if (checked[key] === UNSET) {
      invalid(
        `You passed an empty string for '${name(key)}'. We assume empty values are an attempt to unset a parameter; however '${name(key)}' cannot be unset. You should remove '${name(key)}' from your request or supply a non-empty value.`,
        name(key),
        "parameter_invalid_empty",
      );
    }
  }
  return checked;
}

function checkParams(params: Record<string, unknown>, endpoint: EndpointSpec): Record<string, unknown> {
  const checked = checkFields(params, { ...endpoint.fields, expand: EXPAND }, endpoint.required ?? [], endpoint.notModelled ?? [], "");
  for (const path of (checked.expand as string[] | undefined) ?? []) {
    if (!(endpoint.expandable ?? []).includes(path)) invalid(`This property cannot be expanded (${path}).`, "expand");
  }
  return checked;
}

const ENDPOINTS = {
  createCustomer: {
    fields: {
      email: { type: "string", maxLength: 512 },
      name: { type: "string", maxLength: 256 },
      description: { type: "string" },
      phone: { type: "string", maxLength: 20 },
      metadata: METADATA,
    },
    notModelled: words(`
      address balance business_name cash_balance individual_name invoice_prefix invoice_settings
      next_invoice_sequence payment_method preferred_locales shipping source tax tax_exempt tax_id_data test_clock
      validate
    `),
  },
  retrieve: { fields: {} },
  createCheckoutSession: {
    fields: {
      mode: { type: "string", enum: ["payment", "setup", "subscription"] },
      customer: { type: "string" },
      customer_email: { type: "string" },
      client_reference_id: { type: "string", maxLength: 200 },
      line_items: {
        type: "array",
        maxItems: 20,
        items: { type: "object", fields: { price: { type: "string" }, quantity: { type: "integer", min: 1 } }, required: ["price"] },
      },
      success_url: { type: "string", maxLength: 5000 },
      cancel_url: { type: "string", maxLength: 5000 },
      allow_promotion_codes: { type: "boolean" },
      subscription_data: {
        type: "object",
        fields: { metadata: METADATA, trial_period_days: { type: "integer", min: 1, max: 730 }, description: { type: "string", maxLength: 500 } },
      },
      metadata: METADATA,
    },
    required: ["mode"],
    notModelled: words(`
      adaptive_pricing after_expiration allowed_payment_method_types automatic_tax billing_address_collection
      branding_settings consent_collection currency custom_fields custom_text customer_account customer_creation
      customer_update discounts excluded_payment_method_types expires_at integration_identifier invoice_creation
      locale managed_payments name_collection optional_items origin_context payment_intent_data
      payment_method_collection payment_method_configuration payment_method_data payment_method_options permissions
      phone_number_collection redirect_on_completion return_url saved_payment_method_options setup_intent_data
      shipping_address_collection shipping_options submit_type tax_id_collection ui_mode wallet_options
    `),
    expandable: ["customer", "subscription", "invoice"],
  },
  createPortalSession: {
    fields: { customer: { type: "string" }, return_url: { type: "string", maxLength: 5000 } },
    required: ["customer"],
    notModelled: words("after_expiration configuration customer_account flow_data locale on_behalf_of"),
  },
  retrieveSubscription: { fields: {}, expandable: ["customer", "latest_invoice", "default_payment_method"] },
  updateSubscription: {
    fields: {
      trial_end: { type: "timestamp_or_now" },
      proration_behavior: { type: "string", enum: ["always_invoice", "create_prorations", "none"] },
      cancel_at_period_end: { type: "boolean" },
      description: { type: "string", maxLength: 500 },
      metadata: METADATA,
    },
    notModelled: words(`
      add_invoice_items application_fee_percent automatic_tax billing_cycle_anchor billing_schedules
      billing_thresholds cancel_at cancellation_details collection_method days_until_due default_payment_method
      default_source default_tax_rates discounts invoice_settings items off_session on_behalf_of pause_collection
      payment_behavior payment_settings pending_invoice_item_interval proration_date transfer_data trial_from_plan
      trial_settings
    `),
    expandable: ["customer", "latest_invoice"],
  },
  createPayout: {
    fields: {
      amount: { type: "integer", min: 1 },
      currency: { type: "string" },
      description: { type: "string", maxLength: 5000 },
      statement_descriptor: { type: "string", maxLength: 22 },
      method: { type: "string", enum: ["instant", "standard"] },
      metadata: METADATA,
    },
    required: ["amount", "currency"],
    notModelled: words("destination payout_method source_type"),
  },
} satisfies Record<string, EndpointSpec>;

// ---------------------------------------------------------------------------------------------------------------
// Ids and time

const ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const randomId = (length: number) => Array.from(randomBytes(length), (byte) => ALPHANUMERIC[byte % 62]).join("");

/** `date` + `count` intervals, in UTC; a month end is clamped (Jan 31 + 1 month = Feb 28/29) as Stripe does. */
function addIntervals(seconds: number, interval: StripeInterval, count = 1): number {
  const date = new Date(seconds * 1000);
  if (interval === "day") return seconds + count * 86_400;
  if (interval === "week") return seconds + count * 7 * 86_400;
  const months = interval === "month" ? count : count * 12;
  const target = new Date(
    Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds()),
  );
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return Math.floor(target.getTime() / 1000);
}

const clone = <T>(value: T): T => structuredClone(value);
/** A price as Stripe sends it, typed as the SDK reads it (the SDK turns decimal strings into its Decimal). */
const priceFromWire = (fields: object): Stripe.Price => fields as Stripe.Price;
/** The id of an expandable reference (an id, or the object when expanded). */
const refId = (reference: string | { id: string }): string => (typeof reference === "string" ? reference : reference.id);

// ---------------------------------------------------------------------------------------------------------------

interface SavedResult {
  endpoint: string;
  paramsJson: string;
  status: number;
  body: unknown;
  requestId: string;
}

interface Waiter {
  type: StripeEventType;
  match: (event: StripeEventObject) => boolean;
  resolve: (event: StripeEventObject) => void;
  reject: (error: Error) => void;
}

/** Starts the stand-in on 127.0.0.1. */
export async function startStripeServer(options: StripeServerOptions = {}): Promise<StripeServer> {
  const secretKey = options.secretKey ?? "sk_test_standin";
  if (!secretKey.startsWith("sk_test_")) throw new Error("the Stripe stand-in only takes a test secret key (sk_test_…)");
  const nowMs = options.now ?? Date.now;
  const now = () => Math.floor(nowMs() / 1000);
  const retryDelays = options.webhookRetryDelaysMs ?? [100, 400, 1600];
  // Loaded here, not at the top: everything importing the test kit would otherwise load the SDK.
  const apiVersion = options.apiVersion ?? (await import("stripe")).default.API_VERSION;
  let webhook = options.webhook;

  const prices = new Map<string, Stripe.Price>();
  const created = now();
  for (const input of options.prices ?? DEFAULT_STRIPE_PRICES) {
    prices.set(
      input.id,
      priceFromWire({
        id: input.id,
        object: "price",
        active: true,
        billing_scheme: "per_unit",
        created,
        currency: input.currency ?? "usd",
        custom_unit_amount: null,
        livemode: false,
        lookup_key: null,
        metadata: {},
        nickname: input.nickname ?? null,
        product: input.product ?? `prod_${input.id}`,
        recurring: { interval: input.interval, interval_count: 1, meter: null, usage_type: "licensed", trial_period_days: null },
        tax_behavior: "unspecified",
        tiers_mode: null,
        transform_quantity: null,
        type: "recurring",
        unit_amount: input.unitAmount,
        unit_amount_decimal: String(input.unitAmount),
      }),
    );
  }

  const customers = new Map<string, Stripe.Customer>();
  const sessions = new Map<string, Stripe.Checkout.Session>();
  const portalSessions = new Map<string, Stripe.BillingPortal.Session>();
  const subscriptions = new Map<string, Stripe.Subscription>();
  const invoices = new Map<string, Stripe.Invoice>();
  const charges = new Map<string, Stripe.Charge>();
  const payouts = new Map<string, Stripe.Payout>();
  const paymentMethods = new Map<string, Stripe.PaymentMethod>();
  const payoutsToFail = new Map<string, StripePayoutFailureCode>();
  const pendingPayoutFailures: StripePayoutFailureCode[] = [];
  const payoutTimers = new Set<NodeJS.Timeout>();
  const subscriptionDataOf = new Map<
    string,
    { metadata?: Record<string, string>; trial_period_days?: number; description?: string; price: Stripe.Price; quantity: number }
  >();
  const idempotency = new Map<string, SavedResult>();
  const requests: StripeRequestRecord[] = [];
  const events: StripeEventObject[] = [];
  const deliveries: StripeDelivery[] = [];
  const waiters = new Set<Waiter>();
  const failures: StripeFailureKind[] = [];
  let closed = false;
  let deliveryChain: Promise<void> = Promise.resolve();
  const deliveryAborts = new Set<AbortController>();
  let baseUrl = "";

  // ---- state kept across restarts (options.stateFile) --------------------------------------------------------

  const kept = {
    customers,
    sessions,
    portalSessions,
    subscriptions,
    invoices,
    charges,
    payouts,
    paymentMethods,
    payoutsToFail,
    subscriptionDataOf,
    idempotency,
  };
  const STATE_VERSION = 1;
  if (options.stateFile && existsSync(options.stateFile)) {
    const saved = JSON.parse(readFileSync(options.stateFile, "utf8")) as {
      version?: number;
      maps?: Partial<Record<keyof typeof kept, [string, unknown][]>>;
      pendingPayoutFailures?: StripePayoutFailureCode[];
    };
    if (saved.version !== STATE_VERSION) throw new Error(`${options.stateFile} is not a Stripe stand-in state of version ${STATE_VERSION}`);
    for (const [name, map] of Object.entries(kept) as [keyof typeof kept, Map<string, unknown>][]) {
      for (const [key, value] of saved.maps?.[name] ?? []) map.set(key, value);
    }
    pendingPayoutFailures.push(...(saved.pendingPayoutFailures ?? []));
  }
  let saveQueued = false;
  /** Writes the objects to the state file (once per tick however many changes it had; atomically, by rename). */
  function persist() {
    const file = options.stateFile;
    if (!file || saveQueued) return;
    saveQueued = true;
    queueMicrotask(() => {
      saveQueued = false;
      const maps = Object.fromEntries(Object.entries(kept).map(([name, map]) => [name, [...(map as Map<string, unknown>).entries()]]));
      try {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(`${file}.tmp`, JSON.stringify({ version: STATE_VERSION, maps, pendingPayoutFailures }));
        renameSync(`${file}.tmp`, file);
      } catch (error) {
        process.stderr.write(`The Stripe stand-in could not save its state to ${file}: ${String(error)}\n`);
      }
    });
  }

  // ---- objects ------------------------------------------------------------------------------------------------

  const intervalOf = (price: Stripe.Price) => (price.recurring?.interval ?? "month") as StripeInterval;
  const itemOf = (subscription: Stripe.Subscription) => subscription.items.data[0];

  function newCustomer(params: {
    email?: string | null;
    name?: string | null;
    description?: string | null;
    phone?: string | null;
    metadata?: Record<string, string>;
  }) {
    const customer = {
      id: `cus_${randomId(14)}`,
      object: "customer",
      address: null,
      balance: 0,
      created: now(),
      currency: null,
      default_source: null,
      delinquent: false,
      description: params.description ?? null,
      discount: null,
      email: params.email ?? null,
      invoice_prefix: randomId(8).toUpperCase(),
      invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      livemode: false,
      metadata: params.metadata ?? {},
      name: params.name ?? null,
      next_invoice_sequence: 1,
      phone: params.phone ?? null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: "none",
      test_clock: null,
      customer_account: null,
    } as Stripe.Customer;
    customers.set(customer.id, customer);
    return customer;
  }

  /** The fingerprint of a card number: stable for the number, whoever pays with it (Stripe: per account). */
  function cardFingerprint(cardNumber: string): string {
    const digest = createHmac("sha256", "stripe-standin-card-fingerprint").update(cardNumber).digest();
    return Array.from(digest.subarray(0, 16), (byte) => ALPHANUMERIC[byte % 62]).join("");
  }

  /** A card PaymentMethod, as Checkout makes it when the customer pays, attached to the customer. */
  function newCardPaymentMethod(customer: Stripe.Customer, cardNumber: string) {
    const digits = cardNumber.replace(/[\s-]/g, "");
    if (!/^\d{12,19}$/.test(digits)) throw new Error(`not a card number: ${cardNumber}`);
    const known = TEST_CARDS[digits] ?? { brand: "visa", funding: "credit" };
    const at = now();
    const paymentMethod = {
      id: `pm_${randomId(24)}`,
      object: "payment_method",
      allow_redisplay: "limited",
      billing_details: {
        address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
        email: customer.email ?? null,
        name: customer.name ?? null,
        phone: null,
        tax_id: null,
      },
      card: {
        brand: known.brand,
        checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: "pass" },
        country: "US",
        display_brand: known.brand,
        exp_month: 12,
        exp_year: new Date(at * 1000).getUTCFullYear() + 3,
        fingerprint: cardFingerprint(digits),
        funding: known.funding,
        generated_from: null,
        last4: digits.slice(-4),
        networks: { available: [known.brand], preferred: null },
        regulated_status: "unregulated",
        three_d_secure_usage: { supported: true },
        wallet: null,
      },
      created: at,
      customer: customer.id,
      customer_account: null,
      livemode: false,
      metadata: {},
      type: "card",
    } as Stripe.PaymentMethod;
    paymentMethods.set(paymentMethod.id, paymentMethod);
    return paymentMethod;
  }

  function newSubscription(
    session: Stripe.Checkout.Session,
    customerId: string,
    price: Stripe.Price,
    quantity: number,
    trialDays: number | undefined,
    paymentMethodId: string,
  ) {
    const start = now();
    const id = `sub_${randomId(24)}`;
    const interval = intervalOf(price);
    const trialEnd = trialDays ? start + trialDays * 86_400 : null;
    const periodEnd = trialEnd ?? addIntervals(start, interval);
    const subscriptionData = subscriptionDataOf.get(session.id);
    const plan = {
      id: price.id,
      object: "plan",
      active: true,
      amount: price.unit_amount,
      amount_decimal: price.unit_amount_decimal,
      billing_scheme: "per_unit",
      created: price.created,
      currency: price.currency,
      interval,
      interval_count: 1,
      livemode: false,
      metadata: {},
      meter: null,
      nickname: price.nickname,
      product: price.product,
      tiers_mode: null,
      transform_usage: null,
      trial_period_days: null,
      usage_type: "licensed",
    } as Stripe.Plan;
    const item = {
      id: `si_${randomId(14)}`,
      object: "subscription_item",
      billing_thresholds: null,
      created: start,
      current_period_end: periodEnd,
      current_period_start: start,
      discounts: [],
      metadata: {},
      plan,
      price: clone(price),
      quantity,
      subscription: id,
      tax_rates: [],
      current_trial: null,
    } as Stripe.SubscriptionItem;
    const subscription = {
      id,
      object: "subscription",
      application: null,
      application_fee_percent: null,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null },
      billing_cycle_anchor: periodEnd,
      billing_cycle_anchor_config: null,
      billing_mode: { type: "flexible", flexible: { proration_discounts: "included" }, updated_at: start },
      billing_thresholds: null,
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      cancellation_details: { comment: null, feedback: null, feedback_option: null, reason: null },
      collection_method: "charge_automatically",
      created: start,
      currency: price.currency,
      customer: customerId,
      customer_account: null,
      days_until_due: null,
      default_payment_method: paymentMethodId,
      default_source: null,
      default_tax_rates: [],
      description: subscriptionData?.description ?? null,
      discounts: [],
      ended_at: null,
      invoice_settings: { account_tax_ids: null, custom_fields: null, description: null, footer: null, issuer: { type: "self" } },
      items: { object: "list", data: [item], has_more: false, url: `/v1/subscription_items?subscription=${id}` },
      latest_invoice: null,
      livemode: false,
      metadata: subscriptionData?.metadata ?? {},
      next_pending_invoice_item_invoice: null,
      on_behalf_of: null,
      pause_collection: null,
      payment_settings: { payment_method_options: null, payment_method_types: null, save_default_payment_method: "off" },
      pending_invoice_item_interval: null,
      pending_setup_intent: null,
      pending_update: null,
      schedule: null,
      start_date: start,
      status: trialEnd ? "trialing" : "active",
      test_clock: null,
      transfer_data: null,
      trial_end: trialEnd,
      trial_settings: { end_behavior: { billing_cycle_anchor: null, missing_payment_method: "create_invoice" } },
      trial_start: trialEnd ? start : null,
      billing_schedules: [],
      managed_payments: null,
    } as Stripe.Subscription;
    subscription.billing_cycle_anchor = trialEnd ?? start;
    subscriptions.set(id, subscription);
    return subscription;
  }

  function newInvoice(
    subscription: Stripe.Subscription,
    reason: "subscription_create" | "subscription_cycle" | "subscription_update",
    amount: number,
    periodStart: number,
    periodEnd: number,
  ) {
    const at = now();
    const id = `in_${randomId(24)}`;
    const customer = customers.get(refId(subscription.customer));
    const item = itemOf(subscription);
    const invoice = {
      id,
      object: "invoice",
      account_country: "US",
      account_name: "Study Service",
      account_tax_ids: null,
      amount_due: amount,
      amount_overpaid: 0,
      amount_paid: 0,
      amount_remaining: amount,
      amount_shipping: 0,
      application: null,
      attempt_count: 0,
      attempted: false,
      auto_advance: false,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
      automatically_finalizes_at: null,
      billing_reason: reason,
      collection_method: "charge_automatically",
      created: at,
      currency: subscription.currency,
      custom_fields: null,
      customer: subscription.customer,
      customer_account: null,
      customer_address: null,
      customer_email: customer?.email ?? null,
      customer_name: customer?.name ?? null,
      customer_phone: null,
      customer_shipping: null,
      customer_tax_exempt: "none",
      customer_tax_ids: [],
      default_payment_method: null,
      default_source: null,
      default_tax_rates: [],
      description: null,
      discounts: [],
      due_date: null,
      effective_at: at,
      ending_balance: 0,
      footer: null,
      from_invoice: null,
      hosted_invoice_url: `${baseUrl}/_standin/invoices/${id}`,
      invoice_pdf: `${baseUrl}/_standin/invoices/${id}/pdf`,
      issuer: { type: "self" },
      last_finalization_error: null,
      latest_revision: null,
      lines: {
        object: "list",
        data: [
          {
            id: `il_${randomId(24)}`,
            object: "line_item",
            amount,
            currency: subscription.currency,
            description: `${item.quantity ?? 1} × ${item.price.nickname ?? item.price.id}`,
            discount_amounts: [],
            discountable: true,
            discounts: [],
            invoice: id,
            livemode: false,
            metadata: clone(subscription.metadata),
            parent: {
              type: "subscription_item_details",
              invoice_item_details: null,
              subscription_item_details: {
                invoice_item: null,
                proration: false,
                proration_details: { credited_items: null },
                subscription: subscription.id,
                subscription_item: item.id,
              },
            },
            period: { end: periodEnd, start: periodStart },
            pretax_credit_amounts: [],
            pricing: {
              type: "price_details",
              price_details: { price: item.price.id, product: refId(item.price.product) },
              unit_amount_decimal: item.price.unit_amount_decimal,
            },
            quantity: item.quantity ?? 1,
            quantity_decimal: null,
            subscription: subscription.id,
            subtotal: amount,
            taxes: [],
          },
        ],
        has_more: false,
        url: `/v1/invoices/${id}/lines`,
      },
      livemode: false,
      metadata: {},
      next_payment_attempt: null,
      number: `${customer?.invoice_prefix ?? "STANDIN"}-${String(invoices.size + 1).padStart(4, "0")}`,
      on_behalf_of: null,
      parent: {
        type: "subscription_details",
        quote_details: null,
        subscription_details: { metadata: clone(subscription.metadata), subscription: subscription.id },
      },
      payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
      period_end: periodStart,
      period_start: periodStart,
      post_payment_credit_notes_amount: 0,
      pre_payment_credit_notes_amount: 0,
      receipt_number: null,
      rendering: null,
      shipping_cost: null,
      shipping_details: null,
      starting_balance: 0,
      statement_descriptor: null,
      status: "open",
      status_transitions: { finalized_at: at, marked_uncollectible_at: null, paid_at: null, voided_at: null },
      subtotal: amount,
      subtotal_excluding_tax: amount,
      test_clock: null,
      total: amount,
      total_discount_amounts: [],
      total_excluding_tax: amount,
      total_pretax_credit_amounts: [],
      total_taxes: [],
      webhooks_delivered_at: at,
    } as Stripe.Invoice;
    invoices.set(id, invoice);
    subscription.latest_invoice = id;
    return invoice;
  }

  /** The invoice is paid: by a new charge of the subscription's card when something is due. */
  function payInvoice(invoice: Stripe.Invoice) {
    const at = now();
    const subscriptionId = invoice.parent?.subscription_details?.subscription;
    const method = subscriptionId ? subscriptions.get(refId(subscriptionId))?.default_payment_method : undefined;
    const paymentMethod = method ? paymentMethods.get(refId(method)) : undefined;
    const card = paymentMethod?.card;
    if (invoice.amount_due > 0) {
      const charge = {
        id: `ch_${randomId(24)}`,
        object: "charge",
        amount: invoice.amount_due,
        amount_captured: invoice.amount_due,
        amount_refunded: 0,
        application: null,
        application_fee: null,
        application_fee_amount: null,
        balance_transaction: `txn_${randomId(24)}`,
        billing_details: { address: null, email: invoice.customer_email, name: invoice.customer_name, phone: null, tax_id: null },
        calculated_statement_descriptor: "STUDY SERVICE",
        captured: true,
        created: at,
        currency: invoice.currency,
        customer: invoice.customer,
        description: invoice.billing_reason === "subscription_create" ? "Subscription creation" : "Subscription update",
        disputed: false,
        failure_balance_transaction: null,
        failure_code: null,
        failure_message: null,
        fraud_details: {},
        livemode: false,
        metadata: {},
        on_behalf_of: null,
        outcome: {
          advice_code: null,
          network_advice_code: null,
          network_decline_code: null,
          network_status: "approved_by_network",
          reason: null,
          risk_level: "normal",
          seller_message: "Payment complete.",
          type: "authorized",
        },
        paid: true,
        payment_intent: `pi_${randomId(24)}`,
        payment_method: paymentMethod?.id ?? `pm_${randomId(24)}`,
        payment_method_details: {
          type: "card",
          card: {
            amount_authorized: invoice.amount_due,
            brand: card?.brand ?? "visa",
            checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: "pass" },
            country: "US",
            exp_month: card?.exp_month ?? 12,
            exp_year: card?.exp_year ?? new Date(at * 1000).getUTCFullYear() + 3,
            fingerprint: card?.fingerprint ?? cardFingerprint(DEFAULT_TEST_CARD),
            funding: card?.funding ?? "credit",
            installments: null,
            last4: card?.last4 ?? DEFAULT_TEST_CARD.slice(-4),
            mandate: null,
            network: card?.brand ?? "visa",
            three_d_secure: null,
            wallet: null,
          },
        },
        receipt_email: invoice.customer_email,
        receipt_number: null,
        receipt_url: `${baseUrl}/_standin/receipts/${invoice.id}`,
        refunded: false,
        review: null,
        shipping: null,
        source_transfer: null,
        statement_descriptor: null,
        statement_descriptor_suffix: null,
        status: "succeeded",
        transfer_data: null,
        transfer_group: null,
      } as Stripe.Charge;
      charges.set(charge.id, charge);
    }
    invoice.amount_paid = invoice.amount_due;
    invoice.amount_remaining = 0;
    invoice.attempted = true;
    invoice.attempt_count += 1;
    invoice.next_payment_attempt = null;
    invoice.status = "paid";
    invoice.status_transitions.paid_at = at;
  }

  // ---- events and webhooks ------------------------------------------------------------------------------------

  function emit(
    type: StripeEventType,
    object: object,
    previous?: Record<string, unknown>,
    request: { id: string | null; idempotency_key: string | null } = { id: null, idempotency_key: null },
  ) {
    const event: StripeEventObject = {
      id: `evt_${randomId(24)}`,
      object: "event",
      api_version: apiVersion,
      created: now(),
      data: { object: clone(object) as Record<string, unknown>, ...(previous ? { previous_attributes: clone(previous) } : {}) },
      livemode: false,
      pending_webhooks: webhook ? 1 : 0,
      request,
      type,
    };
    events.push(event);
    persist();
    if (!webhook || closed) return event;
    const endpoint = webhook;
    const delivery: StripeDelivery = { event, payload: JSON.stringify(event, null, 2), attempts: [], outcome: "pending" };
    deliveries.push(delivery);
    deliveryChain = deliveryChain.then(() => deliver(delivery, endpoint));
    return event;
  }

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
    });

  async function deliver(delivery: StripeDelivery, endpoint: StripeWebhookEndpoint): Promise<void> {
    for (let attempt = 0; attempt <= retryDelays.length && !closed; attempt++) {
      if (attempt > 0) await sleep(retryDelays[attempt - 1]);
      if (closed) break;
      const timestamp = now();
      const signature = createHmac("sha256", endpoint.secret).update(`${timestamp}.${delivery.payload}`).digest("hex");
      const abort = new AbortController();
      deliveryAborts.add(abort);
      const timeout = setTimeout(() => abort.abort(), 10_000);
      try {
        const response = await fetch(endpoint.url, {
          method: "POST",
          headers: {
            "content-type": "application/json; charset=utf-8",
            "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
            "stripe-signature": `t=${timestamp},v1=${signature}`,
          },
          body: delivery.payload,
          signal: abort.signal,
        });
        await response.arrayBuffer();
        delivery.attempts.push({ at: timestamp, status: response.status });
        if (response.ok) {
          delivery.outcome = "delivered";
          for (const waiter of waiters) {
            if (waiter.type === delivery.event.type && waiter.match(delivery.event)) {
              waiters.delete(waiter);
              waiter.resolve(delivery.event);
            }
          }
          return;
        }
      } catch (error) {
        delivery.attempts.push({
          at: timestamp,
          error: error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error),
        });
      } finally {
        clearTimeout(timeout);
        deliveryAborts.delete(abort);
      }
    }
    delivery.outcome = "failed";
    for (const waiter of waiters) {
      if (waiter.type === delivery.event.type && waiter.match(delivery.event)) {
        waiters.delete(waiter);
        waiter.reject(new Error(`delivery of ${delivery.event.type} ${delivery.event.id} failed: ${JSON.stringify(delivery.attempts)}`));
      }
    }
  }

  // ---- the API ------------------------------------------------------------------------------------------------

  interface Call {
    params: Record<string, unknown>;
    requestId: string;
    idempotencyKey: string | null;
  }

  const customerOf = (id: unknown, param: string, status: number) => customers.get(String(id)) ?? noSuch("customer", String(id), param, status);

  function expanded(object: object, paths: readonly string[] | undefined) {
    if (!paths?.length) return object;
    const copy = clone(object) as Record<string, unknown>;
    for (const path of paths) {
      const id = copy[path];
      if (typeof id !== "string") continue;
      copy[path] = customers.get(id) ?? subscriptions.get(id) ?? invoices.get(id) ?? paymentMethods.get(id) ?? id;
    }
    return copy;
  }

  function createCheckoutSession(call: Call) {
    const params = checkParams(call.params, ENDPOINTS.createCheckoutSession);
    if (params.mode !== "subscription") {
      invalid(
        `The Stripe stand-in only models mode=subscription checkout sessions (got mode=${String(params.mode)}).`,
        "mode",
        "parameter_not_modelled",
      );
    }
    if (params.customer !== undefined && params.customer_email !== undefined) {
      invalid("You may only specify one of these parameters: customer, customer_email.", "customer", "parameters_exclusive");
    }
    if (typeof params.customer_email === "string") checkEmail(params.customer_email, "customer_email");
    for (const key of ["success_url", "cancel_url"]) if (typeof params[key] === "string") checkUrl(params[key], key);
    const lineItems = (params.line_items as Array<{ price: string; quantity?: number }> | undefined) ?? [];
    if (lineItems.length === 0) invalid("You must provide at least one recurring price in `subscription` mode when using prices.", "line_items");
    if (params.customer !== undefined) customerOf(params.customer, "customer", 400);
    const resolved = lineItems.map((item, index) => ({
      price: prices.get(item.price) ?? noSuch("price", item.price, `line_items[${index}][price]`, 400),
      quantity: item.quantity ?? 1,
    }));
    if (resolved.length > 1) invalid("The Stripe stand-in models one line item per subscription.", "line_items", "parameter_not_modelled");
    const [{ price, quantity }] = resolved;
    const id = `cs_test_a1${randomId(56)}`;
    const at = now();
    const amount = (price.unit_amount ?? 0) * quantity;
    const session = {
      id,
      object: "checkout.session",
      adaptive_pricing: null,
      after_expiration: null,
      allow_promotion_codes: (params.allow_promotion_codes as boolean | undefined) ?? null,
      amount_subtotal: amount,
      amount_total: amount,
      automatic_tax: { enabled: false, liability: null, provider: null, status: null },
      billing_address_collection: null,
      cancel_url: (params.cancel_url as string | undefined) ?? null,
      client_reference_id: (params.client_reference_id as string | undefined) ?? null,
      client_secret: null,
      collected_information: null,
      consent: null,
      consent_collection: null,
      created: at,
      currency: price.currency,
      currency_conversion: null,
      custom_fields: [],
      custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
      customer: (params.customer as string | undefined) ?? null,
      customer_account: null,
      customer_creation: params.customer === undefined ? "always" : null,
      customer_details:
        params.customer_email === undefined
          ? null
          : { address: null, email: params.customer_email, name: null, phone: null, tax_exempt: "none", tax_ids: null },
      customer_email: (params.customer_email as string | undefined) ?? null,
      discounts: [],
      expires_at: at + 86_400,
      integration_identifier: null,
      invoice: null,
      invoice_creation: null,
      livemode: false,
      locale: null,
      metadata: (params.metadata as Record<string, string> | undefined) ?? {},
      mode: "subscription",
      origin_context: null,
      payment_intent: null,
      payment_link: null,
      payment_method_collection: "always",
      payment_method_configuration_details: null,
      payment_method_options: {},
      payment_method_types: ["card"],
      payment_status: "unpaid",
      permissions: null,
      phone_number_collection: { enabled: false },
      recovered_from: null,
      saved_payment_method_options: { allow_redisplay_filters: ["always"], payment_method_remove: null, payment_method_save: null },
      setup_intent: null,
      shipping_address_collection: null,
      shipping_cost: null,
      shipping_options: [],
      status: "open",
      submit_type: null,
      subscription: null,
      success_url: (params.success_url as string | undefined) ?? null,
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
      ui_mode: "hosted",
      url: `${publicBase()}/_standin/checkout/${id}`,
      wallet_options: null,
      allowed_payment_method_types: null,
      managed_payments: null,
    } as Stripe.Checkout.Session;
    sessions.set(id, session);
    const data = params.subscription_data as { metadata?: Record<string, string>; trial_period_days?: number; description?: string } | undefined;
    subscriptionDataOf.set(id, { ...data, price, quantity });
    return expanded(session, params.expand as string[] | undefined);
  }

  function updateSubscription(id: string, call: Call) {
    const params = checkParams(call.params, ENDPOINTS.updateSubscription);
    const subscription = subscriptions.get(id) ?? noSuch("subscription", id, "id", 404);
    const request = { id: call.requestId, idempotency_key: call.idempotencyKey };
    if (
      subscription.status === "canceled" &&
      ["trial_end", "cancel_at_period_end", "proration_behavior", "description"].some((key) => key in params)
    ) {
      invalid("A canceled subscription can only update its cancellation_details and metadata.", undefined);
    }
    const before = clone(subscription);
    const item = itemOf(subscription);
    const at = now();
    let invoice: Stripe.Invoice | undefined;
    if (params.trial_end !== undefined && params.trial_end !== UNSET) {
      if (params.trial_end === "now") {
        if (subscription.status === "trialing") {
          // The trial ends now: a new period starts and is invoiced at once.
          subscription.trial_end = at;
          subscription.status = "active";
          subscription.billing_cycle_anchor = at;
          item.current_period_start = at;
          item.current_period_end = addIntervals(at, intervalOf(item.price));
          invoice = newInvoice(
            subscription,
            "subscription_update",
            (item.price.unit_amount ?? 0) * (item.quantity ?? 1),
            at,
            item.current_period_end,
          );
          payInvoice(invoice);
        }
      } else {
        const trialEnd = Number(params.trial_end);
        if (trialEnd <= at) invalid("Invalid timestamp: must be an integer Unix timestamp in the future.", "trial_end");
        if (trialEnd > at + 730 * 86_400) invalid("Invalid timestamp: can be no more than 730 days in the future.", "trial_end");
        // A trial pushes the next charge to trial_end; the period runs until then and the cycle restarts there.
        subscription.status = "trialing";
        subscription.trial_start = subscription.trial_start && before.status === "trialing" ? subscription.trial_start : at;
        subscription.trial_end = trialEnd;
        subscription.billing_cycle_anchor = trialEnd;
        item.current_period_start = before.status === "trialing" ? item.current_period_start : at;
        item.current_period_end = trialEnd;
        if (subscription.cancel_at_period_end) subscription.cancel_at = trialEnd;
      }
    }
    if (params.cancel_at_period_end !== undefined && params.cancel_at_period_end !== UNSET) {
      const cancel = params.cancel_at_period_end === true;
      subscription.cancel_at_period_end = cancel;
      subscription.cancel_at = cancel ? item.current_period_end : null;
      subscription.canceled_at = cancel ? at : null;
      subscription.cancellation_details = { comment: null, feedback: null, feedback_option: null, reason: cancel ? "cancellation_requested" : null };
    }
    if ("description" in params) subscription.description = (params.description as string | null) ?? null;
    if ("metadata" in params) subscription.metadata = mergeMetadata(subscription.metadata, params.metadata as Record<string, string> | null);
    const previous = changedAttributes(before, subscription);
    if (Object.keys(previous).length > 0) {
      if (invoice) emit("invoice.paid", invoice, undefined, request);
      emit("customer.subscription.updated", subscription, previous, request);
    }
    return expanded(subscription, params.expand as string[] | undefined);
  }

  /** Stripe merges metadata: an empty value deletes a key, `metadata=` empties it. */
  function mergeMetadata(current: Stripe.Metadata, update: Record<string, string> | null): Stripe.Metadata {
    if (update === null) return {};
    const merged = new Map(Object.entries(current));
    for (const [key, value] of Object.entries(update)) {
      if (value === "") merged.delete(key);
      else merged.set(key, value);
    }
    return Object.fromEntries(merged);
  }

  /** The top-level attributes that changed, with their previous values (an event's `previous_attributes`). */
  function changedAttributes(before: object, after: object): Record<string, unknown> {
    const previous: Record<string, unknown> = {};
    const old = before as Record<string, unknown>;
    for (const [key, value] of Object.entries(after)) {
      if (JSON.stringify(old[key]) !== JSON.stringify(value)) previous[key] = old[key];
    }
    return previous;
  }

  function createPayout(call: Call) {
    const params = checkParams(call.params, ENDPOINTS.createPayout);
    const currency = String(params.currency).toLowerCase();
    if (!CURRENCIES.has(currency)) {
      invalid(`Invalid currency: ${String(params.currency)}. Stripe currently supports these currencies: ${[...CURRENCIES].join(", ")}`, "currency");
    }
    if (params.method === "instant") invalid("The Stripe stand-in only models standard payouts.", "method", "parameter_not_modelled");
    const at = now();
    const arrival = new Date((at + 2 * 86_400) * 1000);
    arrival.setUTCHours(0, 0, 0, 0);
    const payout = {
      id: `po_${randomId(24)}`,
      object: "payout",
      amount: params.amount as number,
      application_fee: null,
      application_fee_amount: null,
      arrival_date: Math.floor(arrival.getTime() / 1000),
      automatic: false,
      balance_transaction: `txn_${randomId(24)}`,
      created: at,
      currency,
      description: (params.description as string | undefined) ?? null,
      destination: "ba_standin_default",
      failure_balance_transaction: null,
      failure_code: null,
      failure_message: null,
      livemode: false,
      metadata: (params.metadata as Record<string, string> | undefined) ?? {},
      method: "standard",
      original_payout: null,
      payout_method: null,
      reconciliation_status: "not_applicable",
      reversed_by: null,
      source_type: "card",
      statement_descriptor: (params.statement_descriptor as string | undefined) ?? null,
      status: "pending",
      trace_id: { status: "pending", value: null },
      type: "bank_account",
    } as Stripe.Payout;
    payouts.set(payout.id, payout);
    const failure = pendingPayoutFailures.shift();
    if (failure) payoutsToFail.set(payout.id, failure);
    scheduleSettlement(payout.id);
    return payout;
  }

  /** With payoutSettleDelayMs, a pending payout reaches the bank by itself that long from now. */
  function scheduleSettlement(payoutId: string) {
    if (options.payoutSettleDelayMs === undefined) return;
    const timer = setTimeout(() => {
      payoutTimers.delete(timer);
      if (!closed && payouts.get(payoutId)?.status === "pending") settlePayout(payoutId);
    }, options.payoutSettleDelayMs);
    timer.unref();
    payoutTimers.add(timer);
  }
  // Payouts left pending by a previous run (state file) settle as theirs would have.
  for (const payout of payouts.values()) if (payout.status === "pending") scheduleSettlement(payout.id);

  function settlePayout(id: string, failureCode?: StripePayoutFailureCode) {
    const payout = payouts.get(id);
    if (!payout) throw new Error(`no payout ${id}`);
    if (payout.status !== "pending" && payout.status !== "in_transit") throw new Error(`payout ${id} is ${payout.status}, not pending`);
    const before = clone(payout);
    const code = failureCode ?? payoutsToFail.get(id);
    payoutsToFail.delete(id);
    if (code) {
      payout.status = "failed";
      payout.failure_code = code;
      payout.failure_message = STRIPE_PAYOUT_FAILURES[code];
      payout.failure_balance_transaction = `txn_${randomId(24)}`;
      payout.trace_id = { status: "unsupported", value: null };
      emit("payout.failed", payout, changedAttributes(before, payout));
    } else {
      payout.status = "paid";
      payout.reconciliation_status = "completed";
      payout.trace_id = { status: "supported", value: randomId(15).toUpperCase() };
      emit("payout.paid", payout, changedAttributes(before, payout));
    }
    return clone(payout);
  }

  // ---- controls -----------------------------------------------------------------------------------------------

  const subscriptionFor = (id: string) => {
    const subscription = subscriptions.get(id);
    if (!subscription) throw new Error(`no subscription ${id}`);
    return subscription;
  };

  function completeCheckout(sessionId: string, card = DEFAULT_TEST_CARD) {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`no checkout session ${sessionId}`);
    if (session.status !== "open") throw new Error(`checkout session ${sessionId} is ${session.status}, not open`);
    const data = subscriptionDataOf.get(sessionId);
    if (!data) throw new Error(`checkout session ${sessionId} has no line items`);
    const customer = session.customer ? customerOf(session.customer, "customer", 400) : newCustomer({ email: session.customer_email });
    const paymentMethod = newCardPaymentMethod(customer, card);
    const subscription = newSubscription(session, customer.id, data.price, data.quantity, data.trial_period_days, paymentMethod.id);
    const item = itemOf(subscription);
    const amount = subscription.status === "trialing" ? 0 : (data.price.unit_amount ?? 0) * data.quantity;
    const invoice = newInvoice(subscription, "subscription_create", amount, item.current_period_start, item.current_period_end);
    payInvoice(invoice);
    Object.assign(session, {
      status: "complete",
      payment_status: amount > 0 ? "paid" : "no_payment_required",
      customer: customer.id,
      customer_details: { address: null, email: customer.email, name: customer.name, phone: null, tax_exempt: "none", tax_ids: [] },
      subscription: subscription.id,
      invoice: invoice.id,
      url: null,
    });
    emit("checkout.session.completed", session);
    emit("customer.subscription.created", subscription);
    emit("invoice.paid", invoice);
    return { session: clone(session), subscription: clone(subscription), invoice: clone(invoice) };
  }

  function cancelSubscription(subscriptionId: string) {
    const subscription = subscriptionFor(subscriptionId);
    if (subscription.status === "canceled") throw new Error(`subscription ${subscriptionId} is already canceled`);
    const before = clone(subscription);
    const at = now();
    subscription.status = "canceled";
    subscription.canceled_at = subscription.canceled_at ?? at;
    subscription.ended_at = at;
    subscription.cancellation_details = { comment: null, feedback: null, feedback_option: null, reason: "cancellation_requested" };
    emit("customer.subscription.deleted", subscription, changedAttributes(before, subscription));
    return clone(subscription);
  }

  function renewSubscription(subscriptionId: string) {
    const subscription = subscriptionFor(subscriptionId);
    if (subscription.status === "canceled") throw new Error(`subscription ${subscriptionId} is canceled`);
    if (subscription.cancel_at_period_end) return { subscription: cancelSubscription(subscriptionId) };
    const before = clone(subscription);
    const item = itemOf(subscription);
    let invoice = subscription.latest_invoice ? invoices.get(refId(subscription.latest_invoice)) : undefined;
    if (subscription.status === "past_due" && invoice?.status === "open") {
      payInvoice(invoice);
    } else {
      const start = item.current_period_end;
      item.current_period_start = start;
      item.current_period_end = addIntervals(start, intervalOf(item.price));
      invoice = newInvoice(subscription, "subscription_cycle", (item.price.unit_amount ?? 0) * (item.quantity ?? 1), start, item.current_period_end);
      payInvoice(invoice);
    }
    subscription.status = "active";
    emit("invoice.paid", invoice);
    emit("customer.subscription.updated", subscription, changedAttributes(before, subscription));
    return { subscription: clone(subscription), invoice: clone(invoice) };
  }

  function failNextInvoice(subscriptionId: string) {
    const subscription = subscriptionFor(subscriptionId);
    if (subscription.status === "canceled") throw new Error(`subscription ${subscriptionId} is canceled`);
    const before = clone(subscription);
    const item = itemOf(subscription);
    const start = item.current_period_end;
    item.current_period_start = start;
    item.current_period_end = addIntervals(start, intervalOf(item.price));
    const invoice = newInvoice(
      subscription,
      "subscription_cycle",
      (item.price.unit_amount ?? 0) * (item.quantity ?? 1),
      start,
      item.current_period_end,
    );
    invoice.attempted = true;
    invoice.attempt_count = 1;
    invoice.next_payment_attempt = now() + 3 * 86_400;
    subscription.status = "past_due";
    emit("invoice.payment_failed", invoice);
    emit("customer.subscription.updated", subscription, changedAttributes(before, subscription));
    return { subscription: clone(subscription), invoice: clone(invoice) };
  }

  function refundLatestCharge(customerOrSubscriptionId: string, amount?: number) {
    const customerId = customerOrSubscriptionId.startsWith("sub_")
      ? refId(subscriptionFor(customerOrSubscriptionId).customer)
      : customerOrSubscriptionId;
    const charge = [...charges.values()].filter((candidate) => candidate.customer === customerId && !candidate.refunded).at(-1);
    if (!charge) throw new Error(`no refundable charge of ${customerOrSubscriptionId}`);
    const refundable = charge.amount - charge.amount_refunded;
    const refund = amount ?? refundable;
    if (!Number.isInteger(refund) || refund < 1 || refund > refundable)
      throw new Error(`cannot refund ${refund} of charge ${charge.id} (${refundable} refundable)`);
    const before = clone(charge);
    charge.amount_refunded += refund;
    charge.refunded = charge.amount_refunded === charge.amount;
    emit("charge.refunded", charge, changedAttributes(before, charge));
    return clone(charge);
  }

  // ---- HTTP ---------------------------------------------------------------------------------------------------

  const publicBase = () => (options.publicUrl ?? baseUrl).replace(/\/$/, "");
  const app = express();
  // Every request may have changed an object (a customer made, a session opened, a result saved for its key).
  app.use((_req, res, next) => {
    res.on("finish", persist);
    next();
  });
  app.disable("x-powered-by");
  app.disable("etag");
  // Stripe's bracket notation (`metadata[userId]`, `line_items[0][price]`) in bodies and queries: qs, as Stripe's
  // own clients encode it.
  app.set("query parser", "extended");
  const api = express.Router();
  api.use(express.urlencoded({ extended: true, type: () => true, parameterLimit: 10_000 }));

  /** Records, injects failures, authenticates, replays idempotent results, then runs the endpoint. */
  function endpoint(run: (req: Request, call: Call) => unknown) {
    return (req: Request, res: Response) => {
      const requestId = `req_${randomId(14)}`;
      const params = (req.method === "GET" ? req.query : req.body) as Record<string, unknown> | undefined;
      const idempotencyHeader = req.header("idempotency-key");
      const record: StripeRequestRecord = {
        requestId,
        method: req.method,
        path: req.baseUrl + req.path,
        params: isRecord(params) ? clone(params) : {},
        idempotencyKey: idempotencyHeader,
        stripeVersion: req.header("stripe-version"),
        status: 0,
        replayed: false,
      };
      requests.push(record);
      res.setHeader("request-id", requestId);
      res.setHeader("stripe-version", record.stripeVersion ?? apiVersion);
      if (idempotencyHeader !== undefined && req.method === "POST") res.setHeader("idempotency-key", idempotencyHeader);
      const answer = (status: number, body: unknown) => {
        record.status = status;
        res.status(status).json(body);
      };
      const failWith = (fields: StripeErrorFields) => answer(fields.status, errorBody(fields, requestId, now()));

      const injected = failures.shift();
      if (injected === "connection") {
        req.socket.destroy();
        return;
      }
      if (injected === "api_error") {
        failWith({ status: 500, type: "api_error", message: "An unknown error occurred" });
        return;
      }
      const authorization = req.header("authorization") ?? "";
      const basic = /^Basic (.+)$/i.exec(authorization);
      const key = /^Bearer (.+)$/i.exec(authorization)?.[1] ?? (basic ? Buffer.from(basic[1], "base64").toString().split(":")[0] : undefined);
      if (!key) {
        res.setHeader("www-authenticate", 'Basic realm="Stripe"');
        failWith({
          status: 401,
          type: "invalid_request_error",
          message:
            "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.",
        });
        return;
      }
      if (key !== secretKey) {
        res.setHeader("www-authenticate", 'Basic realm="Stripe"');
        failWith({ status: 401, type: "invalid_request_error", message: `Invalid API Key provided: ${redactedKey(key)}` });
        return;
      }
      const idempotencyKey = req.method === "POST" ? (idempotencyHeader ?? null) : null;
      const endpointName = `${req.method} ${record.path}`;
      const paramsJson = JSON.stringify(record.params);
      if (idempotencyKey !== null) {
        if (idempotencyKey.length > 255) {
          failWith({
            status: 400,
            type: "invalid_request_error",
            message: "Idempotency keys can be no longer than 255 characters.",
            param: "Idempotency-Key",
          });
          return;
        }
        const saved = idempotency.get(idempotencyKey);
        if (saved) {
          if (saved.endpoint !== endpointName) {
            failWith({
              status: 400,
              type: "idempotency_error",
              message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${saved.endpoint}' vs '${endpointName}'). Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            });
            return;
          }
          if (saved.paramsJson !== paramsJson) {
            failWith({
              status: 400,
              type: "idempotency_error",
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            });
            return;
          }
          record.replayed = true;
          res.setHeader("idempotent-replayed", "true");
          res.setHeader("original-request", saved.requestId);
          answer(saved.status, saved.body);
          return;
        }
      }
      const save = (status: number, body: unknown) => {
        if (idempotencyKey !== null) idempotency.set(idempotencyKey, { endpoint: endpointName, paramsJson, status, body, requestId });
      };
      try {
        const body = clone(run(req, { params: record.params, requestId, idempotencyKey }));
        save(200, body);
        answer(200, body);
      } catch (error) {
        if (!(error instanceof StripeApiError)) throw error;
        // Refused parameters fail before the endpoint runs: Stripe saves no result for them and a retry runs anew. A
        // missing resource is an outcome of the run: replayed like a success.
        const body = errorBody(error.fields, requestId, now());
        if (error.fields.code === "resource_missing") save(error.fields.status, body);
        answer(error.fields.status, body);
      }
    };
  }

  const idOf = (req: Request) => String(req.params.id);
  const retrieveParams = (call: Call, spec: EndpointSpec = ENDPOINTS.retrieve) => checkParams(call.params, spec);

  api.post(
    "/customers",
    endpoint((_req, call) => {
      const params = checkParams(call.params, ENDPOINTS.createCustomer);
      if (typeof params.email === "string") checkEmail(params.email, "email");
      return newCustomer(params);
    }),
  );
  api.get(
    "/customers/:id",
    endpoint((req, call) => {
      retrieveParams(call);
      return customers.get(idOf(req)) ?? noSuch("customer", idOf(req), "id", 404);
    }),
  );
  api.post(
    "/checkout/sessions",
    endpoint((_req, call) => createCheckoutSession(call)),
  );
  api.get(
    "/checkout/sessions/:id",
    endpoint((req, call) => {
      const params = retrieveParams(call, { fields: {}, expandable: ENDPOINTS.createCheckoutSession.expandable });
      const session = sessions.get(idOf(req)) ?? noSuch("checkout.session", idOf(req), "session", 404);
      return expanded(session, params.expand as string[] | undefined);
    }),
  );
  api.post(
    "/billing_portal/sessions",
    endpoint((_req, call) => {
      const params = checkParams(call.params, ENDPOINTS.createPortalSession);
      if (typeof params.return_url === "string") checkUrl(params.return_url, "return_url");
      const customer = customerOf(params.customer, "customer", 400);
      const id = `bps_${randomId(24)}`;
      const session = {
        id,
        object: "billing_portal.session",
        configuration: "bpc_standin_default",
        created: now(),
        customer: customer.id,
        customer_account: null,
        flow: null,
        livemode: false,
        locale: null,
        on_behalf_of: null,
        return_url: (params.return_url as string | undefined) ?? null,
        url: `${publicBase()}/_standin/billing_portal/${id}`,
      } as Stripe.BillingPortal.Session;
      portalSessions.set(id, session);
      return session;
    }),
  );
  api.get(
    "/subscriptions/:id",
    endpoint((req, call) => {
      const params = retrieveParams(call, ENDPOINTS.retrieveSubscription);
      const subscription = subscriptions.get(idOf(req)) ?? noSuch("subscription", idOf(req), "id", 404);
      return expanded(subscription, params.expand as string[] | undefined);
    }),
  );
  api.post(
    "/subscriptions/:id",
    endpoint((req, call) => updateSubscription(idOf(req), call)),
  );
  api.get(
    "/payment_methods/:id",
    endpoint((req, call) => {
      retrieveParams(call);
      return paymentMethods.get(idOf(req)) ?? noSuch("PaymentMethod", idOf(req), "id", 404);
    }),
  );
  api.post(
    "/payouts",
    endpoint((_req, call) => createPayout(call)),
  );
  api.get(
    "/payouts/:id",
    endpoint((req, call) => {
      retrieveParams(call);
      return payouts.get(idOf(req)) ?? noSuch("payout", idOf(req), "id", 404);
    }),
  );
  api.use(
    endpoint((req) =>
      invalid(
        `Unrecognized request URL (${req.method}: ${req.baseUrl + req.path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
        undefined,
        undefined,
        404,
      ),
    ),
  );
  app.use("/v1", api);

  // ---- control routes (not Stripe's) --------------------------------------------------------------------------

  const control = express.Router();
  control.use(express.json());
  const act = (run: (req: Request) => unknown) => (req: Request, res: Response) => {
    try {
      res.json(run(req) ?? {});
    } catch (error) {
      res.status(409).json({ error: error instanceof Error ? error.message : String(error) });
    }
  };
  const bodyOf = (req: Request): Record<string, unknown> => (isRecord(req.body) ? req.body : {});
  const failureCodeOf = (value: unknown): StripePayoutFailureCode | undefined => {
    if (value === undefined) return undefined;
    if (typeof value === "string" && value in STRIPE_PAYOUT_FAILURES) return value as StripePayoutFailureCode;
    throw new Error(`unknown payout failure code ${JSON.stringify(value)} (one of ${Object.keys(STRIPE_PAYOUT_FAILURES).join(", ")})`);
  };
  const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

  // The hosted checkout page: visiting it is paying (or, with ?cancel, going back).
  control.get("/checkout/:id", (req, res) => {
    const session = sessions.get(idOf(req));
    if (!session) {
      res.status(404).type("text/plain").send("No such checkout session.");
      return;
    }
    if (req.query.cancel !== undefined) {
      if (session.cancel_url) res.redirect(303, session.cancel_url);
      else res.type("text/plain").send("Checkout canceled.");
      return;
    }
    // `?card=<number>`: the card the customer types (Stripe's test card 4242… when absent).
    const card = typeof req.query.card === "string" && req.query.card !== "" ? req.query.card : undefined;
    if (session.status === "open") {
      try {
        completeCheckout(session.id, card);
      } catch (error) {
        res
          .status(400)
          .type("text/plain")
          .send(error instanceof Error ? error.message : String(error));
        return;
      }
    }
    if (session.success_url) res.redirect(303, session.success_url.replaceAll("{CHECKOUT_SESSION_ID}", session.id));
    else res.type("text/plain").send("Payment complete (Stripe stand-in).");
  });
  // The customer portal: the customer's subscriptions, each cancellable at period end.
  control.get("/billing_portal/:id", (req, res) => {
    const session = portalSessions.get(idOf(req));
    if (!session) {
      res.status(404).type("text/plain").send("No such portal session.");
      return;
    }
    const rows = [...subscriptions.values()]
      .filter((subscription) => subscription.customer === session.customer)
      .map((subscription) => {
        const item = itemOf(subscription);
        const until = new Date(item.current_period_end * 1000).toISOString().slice(0, 10);
        const action =
          subscription.status !== "canceled" && !subscription.cancel_at_period_end
            ? `<form method="post" action="/_standin/billing_portal/${escapeHtml(session.id)}/cancel/${escapeHtml(subscription.id)}"><button>Cancel at period end</button></form>`
            : "";
        return `<li>${escapeHtml(item.price.nickname ?? item.price.id)}: ${escapeHtml(subscription.status)}${subscription.cancel_at_period_end ? " (cancels" : " (renews"} ${until})${action}</li>`;
      });
    const back = session.return_url ? `<p><a href="${escapeHtml(session.return_url)}">Return</a></p>` : "";
    res.type("html").send(`<!doctype html><title>Billing (Stripe stand-in)</title><h1>Your subscriptions</h1><ul>${rows.join("")}</ul>${back}`);
  });
  control.post("/billing_portal/:id/cancel/:subscription", (req, res) => {
    const session = portalSessions.get(idOf(req));
    const subscription = subscriptions.get(req.params.subscription);
    if (!session || subscription?.customer !== session.customer) {
      res.status(404).type("text/plain").send("No such subscription.");
      return;
    }
    const before = clone(subscription);
    subscription.cancel_at_period_end = true;
    subscription.cancel_at = itemOf(subscription).current_period_end;
    subscription.canceled_at = now();
    subscription.cancellation_details = { comment: null, feedback: null, feedback_option: null, reason: "cancellation_requested" };
    emit("customer.subscription.updated", subscription, changedAttributes(before, subscription));
    res.redirect(303, `/_standin/billing_portal/${session.id}`);
  });
  control.post(
    "/checkout/:id/complete",
    act((req) => {
      const card = bodyOf(req).card;
      return completeCheckout(idOf(req), typeof card === "string" ? card : undefined);
    }),
  );
  control.post(
    "/subscriptions/:id/renew",
    act((req) => renewSubscription(idOf(req))),
  );
  control.post(
    "/subscriptions/:id/fail_next_invoice",
    act((req) => failNextInvoice(idOf(req))),
  );
  control.post(
    "/subscriptions/:id/refund_latest_charge",
    act((req) => {
      const amount = bodyOf(req).amount;
      return { charge: refundLatestCharge(idOf(req), typeof amount === "number" ? amount : undefined) };
    }),
  );
  control.post(
    "/subscriptions/:id/cancel",
    act((req) => ({ subscription: cancelSubscription(idOf(req)) })),
  );
  control.post(
    "/payouts/settle",
    act(() => ({ payouts: settleAll() })),
  );
  control.post(
    "/payouts/fail_next",
    act((req) => {
      pendingPayoutFailures.push(failureCodeOf(bodyOf(req).failure_code) ?? "could_not_process");
      return {};
    }),
  );
  control.post(
    "/payouts/:id/settle",
    act((req) => settlePayout(idOf(req), failureCodeOf(bodyOf(req).failure_code))),
  );
  control.post(
    "/fail_next",
    act((req) => {
      const { count, kind } = bodyOf(req);
      if (kind !== undefined && kind !== "api_error" && kind !== "connection") throw new Error("kind is api_error or connection");
      failNext(typeof count === "number" ? count : 1, kind ?? "api_error");
      return {};
    }),
  );
  control.post(
    "/webhook",
    act((req) => {
      const { url, secret } = bodyOf(req);
      if (typeof url !== "string" || typeof secret !== "string") throw new Error("url and secret are strings");
      webhook = { url, secret };
      return {};
    }),
  );
  control.get("/requests", (_req, res) => {
    res.json(requests);
  });
  control.get("/events", (_req, res) => {
    res.json(events);
  });
  control.get("/deliveries", (_req, res) => {
    res.json(deliveries);
  });
  app.use("/_standin", control);
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    res.status(500).json({ error: { message: `The Stripe stand-in failed: ${String(error)}`, type: "api_error" } });
  });

  function settleAll() {
    return [...payouts.values()].filter((payout) => payout.status === "pending").map((payout) => settlePayout(payout.id));
  }
  function failNext(count = 1, kind: StripeFailureKind = "api_error") {
    for (let i = 0; i < count; i++) failures.push(kind);
  }

  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(options.port ?? 0, "127.0.0.1", (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  const port = (server.address() as AddressInfo).port;
  baseUrl = `http://127.0.0.1:${port}`;

  return {
    url: baseUrl,
    port,
    secretKey,
    clientConfig: { host: "127.0.0.1", port, protocol: "http" },
    requests,
    events,
    deliveries,
    setWebhook(endpointConfig) {
      webhook = endpointConfig;
    },
    waitForDelivery(type, match = () => true, timeoutMs = 5000) {
      const done = deliveries.find((delivery) => delivery.outcome === "delivered" && delivery.event.type === type && match(delivery.event));
      if (done) return Promise.resolve(done.event);
      if (!webhook) return Promise.reject(new Error("the Stripe stand-in has no webhook endpoint (options.webhook or setWebhook)"));
      return new Promise<StripeEventObject>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          const seen = deliveries.map((delivery) => `${delivery.event.type}:${delivery.outcome}`).join(", ");
          reject(new Error(`no ${type} event delivered within ${timeoutMs} ms (deliveries: ${seen || "none"})`));
        }, timeoutMs);
        const waiter: Waiter = {
          type,
          match,
          resolve: (event) => {
            clearTimeout(timer);
            resolve(event);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
        waiters.add(waiter);
      });
    },
    webhooksIdle: async () => {
      let chain: Promise<void> | undefined;
      while (chain !== deliveryChain) {
        chain = deliveryChain;
        await chain;
      }
    },
    failNext,
    customer: (id) => (customers.has(id) ? clone(customers.get(id)) : undefined),
    checkoutSession: (id) => (sessions.has(id) ? clone(sessions.get(id)) : undefined),
    subscription: (id) => (subscriptions.has(id) ? clone(subscriptions.get(id)) : undefined),
    invoices: (subscriptionId) =>
      [...invoices.values()]
        .filter((invoice) => invoice.parent?.subscription_details?.subscription === subscriptionId)
        .map((invoice) => clone(invoice)),
    charges: (customerId) => [...charges.values()].filter((charge) => charge.customer === customerId).map((charge) => clone(charge)),
    paymentMethod: (id) => (paymentMethods.has(id) ? clone(paymentMethods.get(id)) : undefined),
    cardFingerprint,
    payout: (id) => (payouts.has(id) ? clone(payouts.get(id)) : undefined),
    completeCheckout,
    renewSubscription,
    failNextInvoice,
    refundLatestCharge,
    cancelSubscription,
    failNextPayout(failureCode = "could_not_process") {
      pendingPayoutFailures.push(failureCode);
    },
    settlePayout,
    settlePayouts: settleAll,
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        for (const timer of payoutTimers) clearTimeout(timer);
        for (const abort of deliveryAborts) abort.abort();
        for (const waiter of waiters) waiter.reject(new Error("the Stripe stand-in closed"));
        waiters.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
