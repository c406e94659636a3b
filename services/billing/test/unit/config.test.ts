import { loadConfig } from "@study/platform";
import { billingConfigSchema, stripePlans } from "../../src/config";

const base = {
  DATABASE_URL: "postgresql://localhost/billing",
  RABBITMQ_URL: "amqp://localhost",
  STRIPE_SECRET_KEY: "sk_test_abc123",
  STRIPE_WEBHOOK_SECRET: "whsec_abc123",
};

describe("billing configuration", () => {
  it("needs Stripe's key and webhook secret, in their formats, with a clear message", () => {
    expect(() => loadConfig(billingConfigSchema, { ...base, STRIPE_SECRET_KEY: undefined })).toThrow("STRIPE_SECRET_KEY: is required but not set");
    expect(() => loadConfig(billingConfigSchema, { ...base, STRIPE_WEBHOOK_SECRET: "secret" })).toThrow(
      "STRIPE_WEBHOOK_SECRET: must be a Stripe webhook signing secret (whsec_…)",
    );
    expect(loadConfig(billingConfigSchema, base)).toMatchObject({
      GRPC_PORT: 50058,
      PAYOUT_CURRENCY: "usd",
      REFERRAL_GOAL: 10,
      APP_STORE_ENVIRONMENTS: "Sandbox",
    });
  });

  it("refuses in production a test key, a stand-in address and missing App Store roots", () => {
    const production = { ...base, NODE_ENV: "production" };
    expect(() => loadConfig(billingConfigSchema, { ...production, STRIPE_API_URL: "http://127.0.0.1:12111" })).toThrow(
      /STRIPE_SECRET_KEY: must be a live key.*APP_STORE_ROOT_CERTIFICATES: is required in production.*STRIPE_API_URL: must be unset in production/,
    );
    expect(
      loadConfig(billingConfigSchema, {
        ...production,
        STRIPE_SECRET_KEY: "sk_live_abc",
        APP_STORE_ROOT_CERTIFICATES: "/etc/apple/AppleRootCA-G3.cer",
      }),
    ).toMatchObject({ NODE_ENV: "production" });
  });

  it("reads the plans on offer", () => {
    expect([...stripePlans({ STRIPE_PLANS: "pro_monthly=price_1, pro_yearly = price_2,broken" })]).toEqual([
      ["pro_monthly", "price_1"],
      ["pro_yearly", "price_2"],
    ]);
  });
});
