import { eventually, requireStatus, type httpClient, type SharedStack } from "@study/testkit";
import { Client } from "pg";

type Api = ReturnType<typeof httpClient>;

/**
 * The user follows the link of the confirmation mail (the shared stack sends no mail: its effect is written, as in
 * account.test.ts; email.test.ts covers the link itself). Billing hears it from the session on the next call.
 */
export async function verifyEmail(stack: SharedStack, userId: string): Promise<void> {
  const db = new Client({ connectionString: stack.databaseUrl("gateway") });
  await db.connect();
  try {
    await db.query(`UPDATE "user" SET "emailVerified" = true WHERE id = $1`, [userId]);
  } finally {
    await db.end();
  }
}

/**
 * The user subscribes through Stripe Checkout (the stand-in's page pays when opened, with `card` when given):
 * with `trial`, a free trial that charges nothing yet; otherwise the first month is paid at once. Answers the
 * subscription once billing has it from Stripe's webhooks.
 */
export async function subscribeThroughStripe(
  api: Api,
  token: string,
  options: { trial?: boolean; card?: string } = {},
): Promise<{ processorSubscriptionId: string; status: string }> {
  const checkout = requireStatus(
    await api("POST", "/api/billing/checkout", {
      token,
      body: { plan: "pro_monthly", successUrl: "https://app.example/ok", cancelUrl: "https://app.example/no", trial: options.trial ?? false },
    }),
    200,
    "POST /api/billing/checkout",
  );
  const page = new URL(checkout.body.data.url as string);
  if (options.card) page.searchParams.set("card", options.card);
  const paid = await fetch(page, { redirect: "manual" });
  if (paid.status !== 303) throw new Error(`the checkout page answered ${paid.status}: ${await paid.text()}`);
  const expected = options.trial ? "trialing" : "active";
  return eventually(async () => {
    const subscription = (await api("GET", "/api/billing/subscription", { token })).body.data as {
      processorSubscriptionId: string;
      status: string;
    } | null;
    return subscription?.status === expected ? subscription : undefined;
  }, 20_000);
}
