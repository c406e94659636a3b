import { newId } from "@study/grpc/ids";
import type { Clock } from "@study/platform/clock";
import { requireUserId } from "@study/platform/ids";
import { shortName } from "../domain/names";
import { assertCanSignUp, newReferral, normalizeCode, type Referral } from "../domain/referral";
import { referralCodeUsed } from "./billing-events";
import type { BillingStore } from "./ports/billing-store.port";

/** The caller signs up with a friend's code: a PENDING referral, the code's usage counted, the referrer told. */
export class SignUpWithCode {
  constructor(
    private readonly store: BillingStore,
    private readonly clock: Clock,
  ) {}

  async execute(userId: string, typedCode: string): Promise<Referral> {
    requireUserId(userId);
    return this.store.transaction(async (tx) => {
      // The code row is locked: two signups racing for the last use of a limited code cannot both pass.
      const code = assertCanSignUp(await tx.findCodeForUpdate(normalizeCode(typedCode)), userId, await tx.findReferralOfRefereeForUpdate(userId));
      const referee = await tx.findAccount(userId);
      const referral = newReferral(newId(), code, userId, this.clock.now());
      await tx.insertReferral(referral);
      await tx.incrementCodeUsage(code.id);
      await tx.enqueue([referralCodeUsed(referral, shortName(referee?.name ?? ""))]);
      return referral;
    });
  }
}
