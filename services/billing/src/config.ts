import { boundedInteger, emptyAsUnset } from "@study/platform";
import { grpcPort, serviceConfigSchema } from "@study/runtime";
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
    GRPC_PORT: grpcPort(50058),
    STRIPE_SECRET_KEY: z
      .string()
      .regex(/^(sk|rk)_(test|live)_\w+$/u, "must be a Stripe secret key (sk_test_… or sk_live_…)")
      .describe("Stripe's secret API key: sk_live_… in production (a test key is refused there), sk_test_… elsewhere (`npm start`: the stand-in's)."),
    STRIPE_WEBHOOK_SECRET: z
      .string()
      .regex(/^whsec_\w+$/u, "must be a Stripe webhook signing secret (whsec_…)")
      .describe("The signing secret of the webhook endpoint (whsec_…): every webhook is verified with it."),
    STRIPE_API_URL: z
      .preprocess(emptyAsUnset, z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional())
      .describe("Stripe's API address: unset for Stripe itself (the only choice in production); the stand-in's URL locally and in tests."),
    STRIPE_TIMEOUT_MS: boundedInteger(100, 120_000, 15_000).describe("How long one request to Stripe may take (ms)."),
    PAYOUT_CURRENCY: z
      .preprocess(
        emptyAsUnset,
        z
          .string()
          .regex(/^[a-z]{3}$/u, "must be a 3-letter ISO currency code in lower case")
          .default("usd"),
      )
      .describe("Currency of payouts."),
    REFERRAL_GOAL: boundedInteger(1, 1_000, 10).describe("The referral dashboard's goal: referrals to aim for."),
    REFERRAL_LEADERBOARD_SIZE: boundedInteger(1, 100, 10).describe("Referrers on the dashboard's leaderboard."),
    REFERRAL_RECENT_SIZE: boundedInteger(1, 50, 5).describe("Recent referrals on the dashboard."),
    STRIPE_TRIAL_DAYS: boundedInteger(0, 730, 7).describe("Days of the free trial a checkout with `trial` starts with (0: no trials)."),
    REWARD_VALIDITY_DAYS: boundedInteger(1, 3_650, 90).describe("Days a PENDING reward may be claimed before it expires."),
    REWARD_EXPIRY_CRON: z
      .preprocess(emptyAsUnset, z.string().default("7 * * * *").refine(isCronPattern, "must be a cron pattern, e.g. 7 * * * *"))
      .describe("When PENDING rewards past their validity are stored as EXPIRED (cron, 5 fields or 6 with seconds; server time)."),
    REFERRAL_LIMIT_PERIOD_DAYS: boundedInteger(1, 365, 30).describe(
      "The rolling period (days) of the per-referrer abuse limits REFERRAL_SIGNUP_LIMIT and REFERRAL_REWARD_LIMIT.",
    ),
    REFERRAL_SIGNUP_LIMIT: boundedInteger(1, 10_000, 20).describe(
      "Sign-ups with one referrer's code per REFERRAL_LIMIT_PERIOD_DAYS (REFERRAL_LIMIT_REACHED beyond).",
    ),
    REFERRAL_REWARD_LIMIT: boundedInteger(1, 10_000, 10).describe(
      "CASH rewards of one referrer per REFERRAL_LIMIT_PERIOD_DAYS (REFERRAL_LIMIT_REACHED beyond).",
    ),
    APP_STORE_BUNDLE_ID: z
      .preprocess(emptyAsUnset, z.string().min(1).default("com.studyservice.app"))
      .describe("The app's bundle id, which App Store payloads must name."),
    APP_STORE_APP_APPLE_ID: z
      .preprocess(emptyAsUnset, z.coerce.number().int().positive().optional())
      .describe("The app's Apple id (required to accept Production data)."),
    APP_STORE_ENVIRONMENTS: z
      .preprocess(emptyAsUnset, z.string().default("Sandbox"))
      .describe("The App Store environments accepted, comma-separated (`Sandbox`, `Production`)."),
    APP_STORE_ROOT_CERTIFICATES: z
      .preprocess(emptyAsUnset, z.string().min(1).optional())
      .describe(
        "Root certificates App Store signatures must chain to, comma-separated: files (.cer/.der DER, .pem) or base64 DER. Apple's roots in production (https://www.apple.com/certificateauthority/). Unset: store payloads are refused.",
      ),
    STRIPE_PLANS: z
      .preprocess(emptyAsUnset, z.string().default("pro_monthly=price_pro_monthly,pro_yearly=price_pro_yearly"))
      .describe("The Stripe price of each plan, as `plan=price_id` pairs separated by commas."),
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
