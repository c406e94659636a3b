import { billing as api } from "@study/contracts";
import { prismaOptions } from "@study/db";
import { systemClock } from "@study/platform/clock";
import type { ServiceDefinition } from "@study/runtime";
import { AppStoreVerifier, loadRootCertificates } from "./adapters/app-store/app-store-verifier";
import { PrismaBillingQueries } from "./adapters/db/prisma-billing-queries";
import { PrismaBillingStore } from "./adapters/db/prisma-billing-store";
import { startDomainEventsConsumer } from "./adapters/events/domain-events-consumer";
import { billingGrpcService } from "./adapters/grpc/billing-grpc-service";
import { scheduleRewardExpiry } from "./adapters/scheduler/reward-expiry-scheduler";
import { StripePaymentProcessor, createStripeClient } from "./adapters/stripe/stripe-payment-processor";
import { StripeSubscriptionProcessor } from "./adapters/stripe/stripe-subscriptions";
import { StripeEventInterpreter, StripeWebhookVerifier } from "./adapters/stripe/stripe-webhooks";
import { ExpireRewards } from "./application/expire-rewards";
import { GetAccountCredits } from "./application/get-account-credits";
import { GetEntitlement } from "./application/get-entitlement";
import { GetReferralDashboard } from "./application/get-referral-dashboard";
import { ApplyProcessorEvent, ReceiveProcessorWebhook } from "./application/processor-webhooks";
import { ProcessReward } from "./application/process-reward";
import { RegisterBillingUser } from "./application/register-billing-user";
import { RequestWithdrawal } from "./application/request-withdrawal";
import { CompleteWithdrawal, ReturnWithdrawal, SendPayout } from "./application/send-payout";
import { SignUpWithCode } from "./application/sign-up-with-code";
import { StartTrial } from "./application/start-trial";
import { ConfirmStorePurchase, HandleStoreNotification } from "./application/store-purchases";
import { CreateCheckoutSession, CreatePortalSession, GetSubscription } from "./application/subscriptions";
import { billingConfigSchema, listSetting, referralLimits, stripePlans, type BillingConfig } from "./config";
import { PrismaClient } from "./generated/prisma/client";
import { billingMigrations } from "./migrations";

/** The composition of the billing service: Stripe, the App Store verifier and Prisma → use cases → gRPC and events. */
export const billingService: ServiceDefinition<PrismaClient, BillingConfig> = {
  ...billingMigrations,
  configSchema: billingConfigSchema,
  createDatabase: (_config, pool) => new PrismaClient(prismaOptions(pool)),
  async compose({ config, db, consumerLink, logger, lifecycle }) {
    const clock = systemClock;
    const store = new PrismaBillingStore(db);
    const queries = new PrismaBillingQueries(db);
    const stripe = createStripeClient({
      secretKey: config.STRIPE_SECRET_KEY,
      apiUrl: config.STRIPE_API_URL,
      currency: config.PAYOUT_CURRENCY,
      timeoutMs: config.STRIPE_TIMEOUT_MS,
    });
    const processor = new StripePaymentProcessor(stripe, config.PAYOUT_CURRENCY);
    const plans = stripePlans(config);
    const planOfPrice = new Map([...plans].map(([plan, price]) => [price, plan]));
    const storeVerifier = new AppStoreVerifier(
      {
        rootCertificates: loadRootCertificates(listSetting(config.APP_STORE_ROOT_CERTIFICATES)),
        bundleId: config.APP_STORE_BUNDLE_ID,
        appAppleId: config.APP_STORE_APP_APPLE_ID,
        environments: listSetting(config.APP_STORE_ENVIRONMENTS),
      },
      logger,
    );

    const sendPayout = new SendPayout(store, processor, clock);
    const completeWithdrawal = new CompleteWithdrawal(store, clock);
    const returnWithdrawal = new ReturnWithdrawal(store, clock);
    await startDomainEventsConsumer({
      ...consumerLink,
      registerBillingUser: new RegisterBillingUser(store, processor, logger),
      sendPayout,
      applyProcessorEvent: new ApplyProcessorEvent({
        store,
        interpreter: new StripeEventInterpreter(stripe),
        completeWithdrawal,
        returnWithdrawal,
        planOfPrice: (priceId) => planOfPrice.get(priceId) ?? priceId,
        clock,
        logger,
      }),
    });

    const subscriptions = new StripeSubscriptionProcessor(stripe);
    const implementation = billingGrpcService(
      {
        getReferralDashboard: new GetReferralDashboard(store, queries, clock, {
          goal: config.REFERRAL_GOAL,
          leaderboardSize: config.REFERRAL_LEADERBOARD_SIZE,
          recentReferrals: config.REFERRAL_RECENT_SIZE,
        }),
        signUpWithCode: new SignUpWithCode(store, clock, referralLimits(config)),
        startTrial: new StartTrial(store, clock, config.REWARD_VALIDITY_DAYS, referralLimits(config)),
        processReward: new ProcessReward(store, processor, clock),
        requestWithdrawal: new RequestWithdrawal(store, sendPayout, clock, logger),
        getAccountCredits: new GetAccountCredits(store, queries, clock),
        createCheckoutSession: new CreateCheckoutSession(store, subscriptions, (plan) => plans.get(plan), config.STRIPE_TRIAL_DAYS),
        createPortalSession: new CreatePortalSession(store, subscriptions),
        getSubscription: new GetSubscription(store),
        getEntitlement: new GetEntitlement(store, clock),
        receiveProcessorWebhook: new ReceiveProcessorWebhook(store, new StripeWebhookVerifier(stripe, config.STRIPE_WEBHOOK_SECRET)),
        handleStoreNotification: new HandleStoreNotification(store, storeVerifier, clock, logger),
        confirmStorePurchase: new ConfirmStorePurchase(store, storeVerifier, clock),
      },
      logger,
    );
    const expiry = scheduleRewardExpiry(config.REWARD_EXPIRY_CRON, new ExpireRewards(store, clock), logger);
    lifecycle.onStop("reward expiry", () => expiry.stop());
    return [{ definition: api.BillingServiceService, implementation }];
  },
};
