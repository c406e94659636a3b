import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startStripeServer, type StripeServer } from "./peers/stripe-server";
import { freePort } from "./ports";
import { WEB_APP_BASE, WEB_APP_DIST } from "./web-app";
import { createDatabaseTemplates, startStack, type RunningStack, type StackOptions } from "./stack";
import { uniqueSuffix } from "./test-env";

export interface TestStack extends RunningStack {
  exchange: string;
  /** Database URL of one app of this stack (e.g. "gateway"). */
  databaseUrl(app: string): string;
  /** Everything the processes logged, for failure diagnosis. */
  logs: string[];
  /**
   * The Stripe stand-in the billing service of this stack talks to (its webhooks go to this stack's gateway); tests
   * in other processes drive it through its `/_standin/` routes at `stripe.url`. Absent when the caller gave its own
   * STRIPE_API_URL.
   */
  stripe?: StripeServer;
}

/** The URL of database `name` on the test PostgreSQL whose admin URL is `adminUrl`. */
function databaseUrlOn(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Where the run's migrated database templates are (set by jest's e2e global set-up, read by every stack). */
const DATABASE_TEMPLATES_ENV = "STUDY_TEST_DATABASE_TEMPLATES";

/**
 * Migrates the run's database templates once (jest's e2e global set-up): each stack of the run then copies them
 * instead of starting a migration process per app. The test workers inherit the setting from jest's process.
 */
export async function prepareDatabaseTemplates(): Promise<void> {
  if (process.env[DATABASE_TEMPLATES_ENV]) return;
  const adminUrl = process.env.STUDY_TEST_POSTGRES_URL;
  if (!adminUrl) throw new Error("the test PostgreSQL is not started (jest's global set-up starts it)");
  const templates = await createDatabaseTemplates({
    databaseUrl: (name) => databaseUrlOn(adminUrl, name),
    prefix: `template_${uniqueSuffix()}_`,
  });
  process.env[DATABASE_TEMPLATES_ENV] = JSON.stringify(templates);
}

/**
 * The whole system for an end-to-end test file: own databases and exchange on the shared test PostgreSQL and
 * RabbitMQ (or on a given broker), processes started from the built dist/ folders.
 */
export interface TestStackOptions extends Partial<StackOptions> {
  /** Serve the built web app at /app/ (CLIENT_URL then points there). */
  webApp?: boolean;
}

export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const adminUrl = process.env.STUDY_TEST_POSTGRES_URL;
  const rabbitmqUrl = options.rabbitmqUrl ?? process.env.STUDY_TEST_RABBITMQ_URL;
  if (!adminUrl || !rabbitmqUrl) throw new Error("run end-to-end tests through jest (its global set-up starts PostgreSQL and RabbitMQ)");
  const suffix = uniqueSuffix();
  const prefix = `e2e_${suffix}_`;
  const exchange = options.exchange ?? `test.${suffix}`;
  const databaseUrl = (name: string) => databaseUrlOn(adminUrl, name);
  const gatewayPort = await freePort();
  const logs: string[] = [];
  const templates = process.env[DATABASE_TEMPLATES_ENV];
  // Billing needs Stripe: each stack gets its own stand-in, whose webhooks reach this stack's gateway.
  const webhookSecret = `whsec_${randomBytes(24).toString("hex")}`;
  const stripe = options.env?.STRIPE_API_URL
    ? undefined
    : await startStripeServer({ webhook: { url: `http://127.0.0.1:${gatewayPort}/api/billing/webhook`, secret: webhookSecret } });
  const stripeEnv: Record<string, string> = stripe
    ? { STRIPE_API_URL: stripe.url, STRIPE_SECRET_KEY: stripe.secretKey, STRIPE_WEBHOOK_SECRET: webhookSecret }
    : {};
  const stack = await startStack({
    databaseUrl,
    databasePrefix: prefix,
    rabbitmqUrl,
    exchange,
    gatewayPort,
    log: (app, line) => logs.push(`[${app}] ${line}`),
    databaseTemplates: templates ? (JSON.parse(templates) as Record<string, string>) : undefined,
    ...options,
    env: { LOG_LEVEL: "warn", NODE_ENV: "test", ...stripeEnv, ...options.env },
    gatewayEnv: {
      AUTH_SECRET: randomBytes(32).toString("hex"),
      BASE_URL: `http://127.0.0.1:${gatewayPort}`,
      CLIENT_URL: "http://localhost:5173",
      MAIL_OUTBOX_DIR: join(tmpdir(), `study-mail-${suffix}`),
      // The web app on the stack's own origin, as `npm start` serves it (the browser tests drive it).
      ...(options.webApp ? { WEB_APP_DIR: WEB_APP_DIST, CLIENT_URL: `http://127.0.0.1:${gatewayPort}${WEB_APP_BASE}` } : {}),
      ...options.gatewayEnv,
    },
  }).catch(async (error: unknown) => {
    await stripe?.close();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${logs.slice(-40).join("\n")}`, { cause: error });
  });
  return {
    ...stack,
    async stopAll() {
      await stack.stopAll();
      await stripe?.close();
    },
    exchange,
    logs,
    stripe,
    databaseUrl: (app) => databaseUrl(`${prefix}${app}`),
  };
}
