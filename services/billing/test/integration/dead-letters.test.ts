import { prismaOptions } from "@study/db";
import { createEvent } from "@study/events";
import { createLogger } from "@study/platform";
import { systemClock } from "@study/platform/clock";
import { migrationSources } from "@study/runtime";
import {
  createTestDatabase,
  expectedDrillOutcome,
  refuseWrites,
  runDeadLetterDrill,
  startStripeServer,
  uniqueSuffix,
  type DrillConsumerSettings,
  type StripeServer,
} from "@study/testkit";
import { PrismaBillingStore } from "../../src/adapters/db/prisma-billing-store";
import { CONSUMER_NAME, startDomainEventsConsumer } from "../../src/adapters/events/domain-events-consumer";
import { createStripeClient, StripePaymentProcessor } from "../../src/adapters/stripe/stripe-payment-processor";
import { StripeEventInterpreter } from "../../src/adapters/stripe/stripe-webhooks";
import { ApplyProcessorEvent } from "../../src/application/processor-webhooks";
import { RegisterBillingUser } from "../../src/application/register-billing-user";
import { CompleteWithdrawal, ReturnWithdrawal, SendPayout } from "../../src/application/send-payout";
import { PrismaClient } from "../../src/generated/prisma/client";
import { billingMigrations } from "../../src/migrations";

/** The dead-letter runbook (docs/operations.md), done on the billing consumer (see runDeadLetterDrill), against the Stripe stand-in. */
describe("billing consumer: dead letters and replay", () => {
  let db: PrismaClient;
  let stripeServer: StripeServer;
  const logger = createLogger("billing-dlq-test", "silent");

  beforeAll(async () => {
    db = new PrismaClient(prismaOptions(await createTestDatabase("billing_dlq", migrationSources(billingMigrations)), 4));
    stripeServer = await startStripeServer();
  });
  afterAll(async () => {
    await db?.$disconnect();
    await stripeServer?.close();
  });

  it("dead-letters a sign-up whose customer cannot be saved, comes back when replayed unrepaired, and has one processor customer after the repair", async () => {
    const userId = `user-${uniqueSuffix()}`;
    const event = createEvent("identity", userId, {
      $case: "userRegistered",
      value: { userId, name: "Ada Lovelace", email: `${userId}@example.com` },
    });
    // The consumer as service.ts composes it.
    const stripe = createStripeClient({ secretKey: stripeServer.secretKey, apiUrl: stripeServer.url, currency: "usd", timeoutMs: 5_000 });
    const processor = new StripePaymentProcessor(stripe, "usd");
    const store = new PrismaBillingStore(db);
    const start = (settings: DrillConsumerSettings) =>
      startDomainEventsConsumer({
        ...settings,
        db,
        registerBillingUser: new RegisterBillingUser(store, processor, logger),
        sendPayout: new SendPayout(store, processor, systemClock),
        applyProcessorEvent: new ApplyProcessorEvent({
          store,
          interpreter: new StripeEventInterpreter(stripe),
          completeWithdrawal: new CompleteWithdrawal(store, systemClock),
          returnWithdrawal: new ReturnWithdrawal(store, systemClock),
          planOfPrice: (priceId) => priceId,
          clock: systemClock,
          logger,
        }),
      });
    const customerRequests = () =>
      stripeServer.requests.filter(
        (request) => request.method === "POST" && request.path === "/v1/customers" && request.idempotencyKey === `customer-${userId}`,
      );

    const drill = await runDeadLetterDrill({
      consumer: CONSUMER_NAME,
      db,
      event,
      start,
      // Stripe makes the customer; saving its id is what the database refuses (the account row itself is written).
      breakCause: () =>
        refuseWrites(db, "billing_account", {
          operations: ["UPDATE"],
          when: "NEW.processor_customer_id IS NOT NULL",
          message: "billing_account is read-only (drill)",
        }),
      observe: async () => {
        const account = await db.billingAccount.findUnique({ where: { userId }, select: { processorCustomerId: true } });
        return {
          account: account ? { customer: account.processorCustomerId === null ? "none" : "saved" } : "none",
          codes: await db.referralCode.count({ where: { userId } }),
          stripeAsked: customerRequests().length,
          // Customers Stripe made: its other answers were replays of the first (one idempotency key for the user).
          customersMade: customerRequests().filter((request) => request.status === 200 && !request.replayed).length,
        };
      },
    });

    // inbox "after": the account and code are written by the first attempt (each made once), Stripe asked once per delivery.
    expect(drill).toEqual(
      expectedDrillOutcome({
        event,
        type: "identity.user.registered.v1",
        attempts: 5,
        lastError: expect.stringContaining("billing_account is read-only (drill)"),
        states: {
          before: { account: "none", codes: 0, stripeAsked: 0, customersMade: 0, inbox: 0 },
          deadLettered: { account: { customer: "none" }, codes: 1, stripeAsked: 5, customersMade: 1, inbox: 0 },
          replayedBeforeRepair: { account: { customer: "none" }, codes: 1, stripeAsked: 10, customersMade: 1, inbox: 0 },
          replayed: { account: { customer: "saved" }, codes: 1, stripeAsked: 11, customersMade: 1, inbox: 1 },
          duplicate: { account: { customer: "saved" }, codes: 1, stripeAsked: 11, customersMade: 1, inbox: 1 },
        },
      }),
    );
  });
});
