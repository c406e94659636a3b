import { newId } from "@study/grpc/ids";
import type { Clock } from "@study/platform/clock";
import { requireUserId } from "@study/platform/ids";
import { shortName } from "../domain/names";
import { assertCanSignUp, newReferral, normalizeCode, type Referral } from "../domain/referral";
import { limitPeriodStart, type ReferralLimits } from "../domain/referral-eligibility";
import { referralCodeUsed } from "./billing-events";
import type { BillingStore } from "./ports/billing-store.port";

/**
 * The caller signs up with a friend's code: a PENDING referral, the code's usage counted, the referrer told. The
 * caller's e-mail must be verified (the gateway says whether it is) and the referrer within their sign-ups of the
 * limit period.
 */
export class SignUpWithCode {
  constructor(
    private readonly store: BillingStore,
    private readonly clock: Clock,
    private readonly limits: ReferralLimits,
  ) {}

  async execute(userId: string, typedCode: string, emailVerified: boolean): Promise<Referral> {
    requireUserId(userId);
    return this.store.transaction(async (tx) => {
      const now = this.clock.now();
      // The code row is locked: two signups racing for the last use of a limited code (or the referrer's last
      // sign-up of the period) cannot both pass.
      const found = await tx.findCodeForUpdate(normalizeCode(typedCode));
      const referrerSignups = found ? await tx.countReferralsSince(found.userId, limitPeriodStart(this.limits, now)) : 0;
      const code = assertCanSignUp(found, userId, await tx.findReferralOfRefereeForUpdate(userId), {
        emailVerified,
        referrerSignups,
        signupLimit: this.limits.signupsPerPeriod,
      });
      const referee = await tx.findAccount(userId);
      const referral = newReferral(newId(), code, userId, now);
      await tx.insertReferral(referral);
      await tx.incrementCodeUsage(code.id);
      await tx.enqueue([referralCodeUsed(referral, shortName(referee?.name ?? ""))]);
      return referral;
    });
  }
}
