-- Issue #29 (referral farming): a referee's first payment releases the referrer's CASH reward, a PENDING reward says
-- why it cannot be processed yet, subscriptions keep the card fingerprint Stripe reports, and the expiry job finds
-- PENDING rewards past their expiry by index.

-- AlterTable
ALTER TABLE "billing_account" ADD COLUMN "first_payment_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "referral_reward" ADD COLUMN "pending_reason" VARCHAR(40);

-- AlterTable
ALTER TABLE "subscription" ADD COLUMN "card_fingerprint" VARCHAR(64);

-- CreateIndex
CREATE INDEX "referral_reward_status_expires_at_idx" ON "referral_reward"("status", "expires_at");

-- CreateIndex
CREATE INDEX "subscription_card_fingerprint_idx" ON "subscription"("card_fingerprint");

-- Cash rewards made before the rule waits for their referee's first payment too (no payment is on record yet: the
-- referee's next paid invoice or store purchase releases them).
UPDATE "referral_reward" SET "pending_reason" = 'AWAITING_FIRST_PAYMENT' WHERE "reward_type" = 'CASH' AND "status" = 'PENDING';
