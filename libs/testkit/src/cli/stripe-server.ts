import { randomBytes } from "node:crypto";
import { startStripeServer, type StripeServer } from "../peers/stripe-server";

export interface StripeStandInSettings {
  /** Port on 127.0.0.1 (default STRIPE_STANDIN_PORT, else 12111: stripe-mock's, so it is easy to recognise). */
  port?: number;
  /** The key billing must use (default STRIPE_SECRET_KEY when it is a test key, else `sk_test_standin`). */
  secretKey?: string;
  /** Where events go (default STRIPE_WEBHOOK_URL): the gateway's Stripe webhook route. */
  webhookUrl?: string;
  /** The endpoint's signing secret (default STRIPE_WEBHOOK_SECRET, else a fresh whsec_…). */
  webhookSecret?: string;
  /** Base of the checkout/portal URLs a browser opens (default STRIPE_STANDIN_PUBLIC_URL, else the server's URL). */
  publicUrl?: string;
  /** Payouts reach the bank this long after creation (default STRIPE_STANDIN_PAYOUT_SETTLE_MS, else 3000 ms). */
  payoutSettleDelayMs?: number;
  /**
   * A file keeping customers, subscriptions, payouts… across restarts (default STRIPE_STANDIN_STATE_FILE, else
   * none: in memory). `npm start` puts it in its data directory.
   */
  stateFile?: string;
}

/**
 * Stripe for `npm start` on a machine without Stripe keys: the test kit's Stripe stand-in, with a webhook endpoint,
 * payouts that settle (paid) a few seconds after creation, and hosted checkout/portal pages that a person can click
 * through (visiting the checkout URL pays). `serviceEnv` is what the billing service needs to use it. With a
 * `stateFile` its objects survive a restart (a customer made before it can still check out after it).
 */
export async function startStripeStandIn(settings: StripeStandInSettings = {}, env: NodeJS.ProcessEnv = process.env) {
  const envKey = env.STRIPE_SECRET_KEY?.startsWith("sk_test_") ? env.STRIPE_SECRET_KEY : undefined;
  const secretKey = settings.secretKey ?? envKey ?? "sk_test_standin";
  const webhookSecret = settings.webhookSecret ?? env.STRIPE_WEBHOOK_SECRET ?? `whsec_${randomBytes(24).toString("hex")}`;
  const webhookUrl = settings.webhookUrl ?? env.STRIPE_WEBHOOK_URL;
  const server: StripeServer = await startStripeServer({
    port: settings.port ?? Number(env.STRIPE_STANDIN_PORT ?? 12111),
    secretKey,
    webhook: webhookUrl ? { url: webhookUrl, secret: webhookSecret } : undefined,
    publicUrl: settings.publicUrl ?? env.STRIPE_STANDIN_PUBLIC_URL,
    payoutSettleDelayMs: settings.payoutSettleDelayMs ?? Number(env.STRIPE_STANDIN_PAYOUT_SETTLE_MS ?? 3000),
    stateFile: settings.stateFile ?? (env.STRIPE_STANDIN_STATE_FILE || undefined),
  });
  return {
    server,
    /** For the billing service. */
    serviceEnv: { STRIPE_API_URL: server.url, STRIPE_SECRET_KEY: secretKey, STRIPE_WEBHOOK_SECRET: webhookSecret },
    stop: () => server.close(),
  };
}

// `node libs/testkit/dist/cli/stripe-server.js`: the stand-in alone, until interrupted.
if (require.main === module) {
  void startStripeStandIn().then(({ server, serviceEnv, stop }) => {
    console.log(`Stripe stand-in on ${server.url} (controls under ${server.url}/_standin/)`);
    for (const [name, value] of Object.entries(serviceEnv)) console.log(`${name}=${value}`);
    const shutdown = () => void stop().then(() => process.exit(0));
    process.once("SIGINT", shutdown);
    process.once("SIGTERM", shutdown);
  });
}
