import type { VerificationRefusal } from "../../domain/email-verification";

/** The auth library's e-mail verification: it mails the link and checks the token. */
export interface EmailVerifier {
  sendVerification(email: string): Promise<void>;
  /** Marks the address confirmed; null when done, otherwise why the token does not work. */
  verify(token: string): Promise<VerificationRefusal | null>;
}

/** Remembers which verification tokens were used, so that each works once. */
export interface VerificationTokenLedger {
  /** True the first time a token is claimed, false ever after. */
  claim(token: string): Promise<boolean>;
}
