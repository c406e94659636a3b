import { emailAlreadyVerified, type VerificationRefusal } from "../domain/email-verification";
import type { EmailVerifier, VerificationTokenLedger } from "./ports/email-verification.port";

export class RequestEmailVerification {
  constructor(private readonly verifier: EmailVerifier) {}

  /** Mails (again) the link that confirms the user's address; EMAIL_ALREADY_VERIFIED once it is confirmed. */
  async execute(user: { email: string; emailVerified: boolean }): Promise<void> {
    if (user.emailVerified) throw emailAlreadyVerified();
    await this.verifier.sendVerification(user.email);
  }
}

export class ConfirmEmail {
  constructor(
    private readonly ledger: VerificationTokenLedger,
    private readonly verifier: EmailVerifier,
  ) {}

  /**
   * Confirms the address a verification link was sent to; null when done, otherwise why the link does not
   * work. A link works once: the token is claimed before it is checked, so a second use is INVALID_TOKEN.
   */
  async execute(token: string): Promise<VerificationRefusal | null> {
    if (!(await this.ledger.claim(token))) return "INVALID_TOKEN";
    return this.verifier.verify(token);
  }
}
