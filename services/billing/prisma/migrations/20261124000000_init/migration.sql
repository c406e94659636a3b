-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "billing_account" (
    "user_id" TEXT NOT NULL,
    "name" VARCHAR(255) NOT NULL,
    "email" VARCHAR(320) NOT NULL,
    "processor_customer_id" VARCHAR(255),
    "credit_cents" INTEGER NOT NULL DEFAULT 0,
    "reserved_cents" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "billing_account_pkey" PRIMARY KEY ("user_id")
);

-- CreateTable
CREATE TABLE "referral_code" (
    "id" UUID NOT NULL,
    "code" VARCHAR(32) NOT NULL,
    "user_id" TEXT NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "usage_count" INTEGER NOT NULL DEFAULT 0,
    "max_usage" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "referral_code_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "referral" (
    "id" UUID NOT NULL,
    "referrer_id" TEXT NOT NULL,
    "referee_id" TEXT NOT NULL,
    "referral_code_id" UUID NOT NULL,
    "status" VARCHAR(20) NOT NULL,
    "signup_date" TIMESTAMPTZ(3) NOT NULL,
    "trial_start_date" TIMESTAMPTZ(3),
    "reward_claimed_date" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "referral_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "referral_reward" (
    "id" UUID NOT NULL,
    "referral_id" UUID NOT NULL,
    "reward_type" VARCHAR(20) NOT NULL,
    "cash_amount_cents" INTEGER,
    "free_months" INTEGER,
    "user_id" TEXT NOT NULL,
    "status" VARCHAR(20) NOT NULL,
    "claimed_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "subscription_extension" VARCHAR(255),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "referral_reward_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "withdrawal" (
    "id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "amount_cents" INTEGER NOT NULL,
    "status" VARCHAR(20) NOT NULL,
    "processor_payment_id" VARCHAR(255),
    "failure_reason" VARCHAR(500),
    "requested_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "withdrawal_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_entry" (
    "id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "kind" VARCHAR(30) NOT NULL,
    "credit_delta_cents" INTEGER NOT NULL,
    "reserved_delta_cents" INTEGER NOT NULL,
    "reward_id" UUID,
    "withdrawal_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "subscription" (
    "id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "plan" VARCHAR(100) NOT NULL,
    "reference_id" VARCHAR(255) NOT NULL,
    "processor_customer_id" VARCHAR(255) NOT NULL,
    "processor_subscription_id" VARCHAR(255) NOT NULL,
    "status" VARCHAR(30) NOT NULL,
    "period_start" TIMESTAMPTZ(3),
    "period_end" TIMESTAMPTZ(3),
    "cancel_at_period_end" BOOLEAN NOT NULL DEFAULT false,
    "seats" INTEGER NOT NULL DEFAULT 1,
    "trial_start" TIMESTAMPTZ(3),
    "trial_end" TIMESTAMPTZ(3),
    "last_event_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "subscription_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "store_subscription" (
    "original_transaction_id" VARCHAR(64) NOT NULL,
    "user_id" TEXT NOT NULL,
    "last_transaction_id" VARCHAR(64) NOT NULL,
    "product_id" VARCHAR(255) NOT NULL,
    "status" VARCHAR(20) NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "grace_period_expires_at" TIMESTAMPTZ(3),
    "environment" VARCHAR(20) NOT NULL,
    "bundle_id" VARCHAR(255) NOT NULL,
    "signed_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "store_subscription_pkey" PRIMARY KEY ("original_transaction_id")
);

-- CreateTable
CREATE TABLE "access_extension" (
    "reward_id" UUID NOT NULL,
    "user_id" TEXT NOT NULL,
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "ends_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "access_extension_pkey" PRIMARY KEY ("reward_id")
);

-- CreateTable
CREATE TABLE "entitlement" (
    "user_id" TEXT NOT NULL,
    "is_pro" BOOLEAN NOT NULL,
    "source" VARCHAR(20) NOT NULL,
    "plan" VARCHAR(255),
    "expires_at" TIMESTAMPTZ(3),
    "in_grace" BOOLEAN NOT NULL DEFAULT false,
    "recheck_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "entitlement_pkey" PRIMARY KEY ("user_id")
);

-- CreateTable
CREATE TABLE "processor_event" (
    "id" VARCHAR(255) NOT NULL,
    "type" VARCHAR(100) NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processed_at" TIMESTAMPTZ(3),

    CONSTRAINT "processor_event_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "store_notification" (
    "uuid" VARCHAR(64) NOT NULL,
    "type" VARCHAR(64) NOT NULL,
    "subtype" VARCHAR(64),
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "store_notification_pkey" PRIMARY KEY ("uuid")
);

-- CreateIndex
CREATE UNIQUE INDEX "billing_account_processor_customer_id_key" ON "billing_account"("processor_customer_id");

-- CreateIndex
CREATE UNIQUE INDEX "referral_code_code_key" ON "referral_code"("code");

-- CreateIndex
CREATE INDEX "referral_code_user_id_idx" ON "referral_code"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "referral_referee_id_key" ON "referral"("referee_id");

-- CreateIndex
CREATE INDEX "referral_referrer_id_signup_date_idx" ON "referral"("referrer_id", "signup_date");

-- CreateIndex
CREATE INDEX "referral_reward_user_id_status_idx" ON "referral_reward"("user_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "referral_reward_referral_id_reward_type_key" ON "referral_reward"("referral_id", "reward_type");

-- CreateIndex
CREATE UNIQUE INDEX "withdrawal_processor_payment_id_key" ON "withdrawal"("processor_payment_id");

-- CreateIndex
CREATE INDEX "withdrawal_user_id_requested_at_idx" ON "withdrawal"("user_id", "requested_at");

-- CreateIndex
CREATE INDEX "ledger_entry_user_id_created_at_idx" ON "ledger_entry"("user_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entry_kind_reward_id_key" ON "ledger_entry"("kind", "reward_id");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entry_kind_withdrawal_id_key" ON "ledger_entry"("kind", "withdrawal_id");

-- CreateIndex
CREATE UNIQUE INDEX "subscription_processor_subscription_id_key" ON "subscription"("processor_subscription_id");

-- CreateIndex
CREATE INDEX "subscription_user_id_created_at_idx" ON "subscription"("user_id", "created_at");

-- CreateIndex
CREATE INDEX "store_subscription_user_id_idx" ON "store_subscription"("user_id");

-- CreateIndex
CREATE INDEX "access_extension_user_id_ends_at_idx" ON "access_extension"("user_id", "ends_at");

-- Each user has one active referral code (Prisma cannot express a partial unique index).
CREATE UNIQUE INDEX "referral_code_one_active_per_user" ON "referral_code"("user_id") WHERE "is_active";

-- Balances never go negative, whatever the code above them does.
ALTER TABLE "billing_account" ADD CONSTRAINT "billing_account_credit_not_negative" CHECK ("credit_cents" >= 0);
ALTER TABLE "billing_account" ADD CONSTRAINT "billing_account_reserved_not_negative" CHECK ("reserved_cents" >= 0);
ALTER TABLE "withdrawal" ADD CONSTRAINT "withdrawal_amount_positive" CHECK ("amount_cents" > 0);
