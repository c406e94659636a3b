import { boundedInteger, emptyAsUnset, port } from "@study/platform";
import { serviceConfigSchema } from "@study/runtime";
import { Cron } from "croner";
import { z } from "zod";

/** A pattern croner accepts; checked at start-up so a typo fails fast instead of never running. */
function isCronPattern(pattern: string): boolean {
  try {
    new Cron(pattern).stop();
    return true;
  } catch {
    return false;
  }
}

/**
 * Settings of the billing service. Stripe is required: locally `npm start` points it at the test kit's Stripe
 * stand-in (STRIPE_API_URL, a test key), the way Stripe's own test mode is used; in production (NODE_ENV=production)
 * the service refuses to start with a test key, a stand-in URL or no webhook secret.
 */
export const billingConfigSchema = serviceConfigSchema
  .extend({
    GRPC_PORT: port(50058),
    /** Stripe's secret API key (sk_live_… in production, sk_test_… elsewhere). */
    STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_(test|live)_\w+$/u, "must be a Stripe secret key (sk_test_… or sk_live_…)"),
    /** The signing secret of the webhook endpoint (whsec_…): every webhook is verified with it. */
    STRIPE_WEBHOOK_SECRET: z.string().regex(/^whsec_\w+$/u, "must be a Stripe webhook signing secret (whsec_…)"),
    /** Stripe's API address: unset for Stripe itself; the stand-in's URL locally and in tests. */
    STRIPE_API_URL: z.preprocess(emptyAsUnset, z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional()),
    /** How long one request to Stripe may take (ms). */
    STRIPE_TIMEOUT_MS: boundedInteger(100, 120_000, 15_000),
    /** Currency of payouts. */
    PAYOUT_CURRENCY: z.preprocess(
      emptyAsUnset,
      z
        .string()
        .regex(/^[a-z]{3}$/u, "must be a 3-letter ISO currency code in lower case")
        .default("usd"),
    ),
    /** The referral dashboard's goal (referrals to aim for), leaderboard length and recent referrals shown. */
    REFERRAL_GOAL: boundedInteger(1, 1_000, 10),
    REFERRAL_LEADERBOARD_SIZE: boundedInteger(1, 100, 10),
    REFERRAL_RECENT_SIZE: boundedInteger(1, 50, 5),
    /** Days of the free trial a checkout with `trial` starts with (0: no trials). */
    STRIPE_TRIAL_DAYS: boundedInteger(0, 730, 7),
    /** Days a PENDING reward may be claimed before it expires. */
    REWARD_VALIDITY_DAYS: boundedInteger(1, 3_650, 90),
    /** When PENDING rewards past their validity are stored as EXPIRED (cron, 5 fields or 6 with seconds; server time). */
    REWARD_EXPIRY_CRON: z.preprocess(emptyAsUnset, z.string().default("7 * * * *").refine(isCronPattern, "must be a cron pattern, e.g. 7 * * * *")),
    /**
     * Abuse limits per referrer over a rolling period of REFERRAL_LIMIT_PERIOD_DAYS: at most REFERRAL_SIGNUP_LIMIT
     * sign-ups with their code and REFERRAL_REWARD_LIMIT CASH rewards (REFERRAL_LIMIT_REACHED beyond).
     */
    REFERRAL_LIMIT_PERIOD_DAYS: boundedInteger(1, 365, 30),
    REFERRAL_SIGNUP_LIMIT: boundedInteger(1, 10_000, 20),
    REFERRAL_REWARD_LIMIT: boundedInteger(1, 10_000, 10),
    /** App Store: the app's bundle id, its Apple id (required for Production data) and the environments accepted. */
    APP_STORE_BUNDLE_ID: z.preprocess(emptyAsUnset, z.string().min(1).default("com.studyservice.app")),
    APP_STORE_APP_APPLE_ID: z.preprocess(emptyAsUnset, z.coerce.number().int().positive().optional()),
    APP_STORE_ENVIRONMENTS: z.preprocess(emptyAsUnset, z.string().default("Sandbox")),
    /**
     * Root certificates App Store signatures must chain to, comma-separated: files (.cer/.der DER, .pem) or base64
     * DER. Apple's roots in production (https://www.apple.com/certificateauthority/). Unset: store payloads are refused.
     */
    APP_STORE_ROOT_CERTIFICATES: z.preprocess(emptyAsUnset, z.string().min(1).optional()),
    /** The Stripe price of each plan, as `plan=price_id` pairs separated by commas. */
    STRIPE_PLANS: z.preprocess(emptyAsUnset, z.string().default("pro_monthly=price_pro_monthly,pro_yearly=price_pro_yearly")),
  })
  .superRefine((config, context) => {
    if (config.NODE_ENV !== "production") return;
    if (config.STRIPE_SECRET_KEY.includes("_test_")) {
      context.addIssue({ code: "custom", path: ["STRIPE_SECRET_KEY"], message: "must be a live key (sk_live_…) in production" });
    }
    if (!config.APP_STORE_ROOT_CERTIFICATES) {
      context.addIssue({ code: "custom", path: ["APP_STORE_ROOT_CERTIFICATES"], message: "is required in production (Apple's root certificates)" });
    }
    if (config.STRIPE_API_URL) {
      context.addIssue({ code: "custom", path: ["STRIPE_API_URL"], message: "must be unset in production (Stripe's own API)" });
    }
  });
export type BillingConfig = z.infer<typeof billingConfigSchema>;

/** The referral abuse limits of the settings. */
export const referralLimits = (config: Pick<BillingConfig, "REFERRAL_LIMIT_PERIOD_DAYS" | "REFERRAL_SIGNUP_LIMIT" | "REFERRAL_REWARD_LIMIT">) => ({
  periodDays: config.REFERRAL_LIMIT_PERIOD_DAYS,
  signupsPerPeriod: config.REFERRAL_SIGNUP_LIMIT,
  rewardsPerPeriod: config.REFERRAL_REWARD_LIMIT,
});

/** STRIPE_PLANS as a map plan → price id. */
export function stripePlans(config: Pick<BillingConfig, "STRIPE_PLANS">): Map<string, string> {
  return new Map(
    config.STRIPE_PLANS.split(",")
      .map((pair) => pair.split("=").map((part) => part.trim()))
      .filter((pair): pair is [string, string] => pair.length === 2 && pair[0] !== "" && pair[1] !== ""),
  );
}

export const listSetting = (value: string | undefined): string[] =>
  (value ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
