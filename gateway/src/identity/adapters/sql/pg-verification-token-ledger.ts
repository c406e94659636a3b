import type { SqlClient } from "@study/db";
import type { VerificationTokenLedger } from "../../application/ports/email-verification.port";
import { hashToken } from "../token-hash";

/**
 * Table used_verification_token: the verification token is the library's signed JWT, which the library would
 * accept until it expires; this ledger makes it single-use.
 */
export class PgVerificationTokenLedger implements VerificationTokenLedger {
  constructor(private readonly db: SqlClient) {}

  async claim(token: string): Promise<boolean> {
    const inserted = await this.db.$executeRawUnsafe(
      "INSERT INTO used_verification_token (token_hash) VALUES ($1) ON CONFLICT DO NOTHING",
      hashToken(token),
    );
    return inserted > 0;
  }
}
