import type { TransactionalClient } from "@study/db";
import { NO_FAILURES, type AccountFailures, type FailureState } from "../../domain/lockout";
import type { SignInFailureRepository } from "../../application/ports/sign-in-failures.port";

interface PairRow {
  failures: number;
  locked_until: Date | null;
  last_failure_at: Date | null;
  signed_in_at: Date | null;
}

/**
 * Tables sign_in_attempt (one row per e-mail and client address that failed or signed in) and
 * sign_in_account_failure (one row per e-mail: its failures from every address in the current window). A change
 * runs in a transaction holding the row's lock, so parallel attempts of one pair are counted one after the other.
 */
export class PgSignInFailureRepository implements SignInFailureRepository {
  constructor(private readonly db: TransactionalClient) {}

  updatePair<R>(email: string, clientAddress: string, change: (state: FailureState) => { next: FailureState; result: R }): Promise<R> {
    return this.db.$transaction(async (tx) => {
      // The row exists before it is locked, so that the first attempts of a pair wait for each other too.
      await tx.$executeRawUnsafe(
        `INSERT INTO sign_in_attempt (email, client_address) VALUES ($1, $2) ON CONFLICT (email, client_address) DO NOTHING`,
        email,
        clientAddress,
      );
      const [row] = await tx.$queryRawUnsafe<PairRow[]>(
        `SELECT failures, locked_until, last_failure_at, signed_in_at FROM sign_in_attempt
         WHERE email = $1 AND client_address = $2 FOR UPDATE`,
        email,
        clientAddress,
      );
      const state: FailureState = row
        ? { failures: row.failures, lockedUntil: row.locked_until, lastFailureAt: row.last_failure_at, known: row.signed_in_at !== null }
        : NO_FAILURES;
      const { next, result } = change(state);
      if (next.failures === 0 && !next.known) {
        await tx.$executeRawUnsafe(`DELETE FROM sign_in_attempt WHERE email = $1 AND client_address = $2`, email, clientAddress);
      } else {
        await tx.$executeRawUnsafe(
          `UPDATE sign_in_attempt SET failures = $3, locked_until = $4, last_failure_at = $5,
             signed_in_at = CASE WHEN $6::boolean THEN coalesce(signed_in_at, now()) END
           WHERE email = $1 AND client_address = $2`,
          email,
          clientAddress,
          next.failures,
          next.lockedUntil,
          next.lastFailureAt,
          next.known,
        );
      }
      return result;
    });
  }

  async accountFailures(email: string): Promise<AccountFailures | null> {
    const [row] = await this.db.$queryRawUnsafe<{ window_started_at: Date; failures: number }[]>(
      "SELECT window_started_at, failures FROM sign_in_account_failure WHERE email = $1",
      email,
    );
    return row ? { windowStartedAt: row.window_started_at, failures: row.failures } : null;
  }

  updateAccount(email: string, change: (state: AccountFailures | null) => AccountFailures): Promise<void> {
    return this.db.$transaction(async (tx) => {
      const [row] = await tx.$queryRawUnsafe<{ window_started_at: Date; failures: number }[]>(
        "SELECT window_started_at, failures FROM sign_in_account_failure WHERE email = $1 FOR UPDATE",
        email,
      );
      const next = change(row ? { windowStartedAt: row.window_started_at, failures: row.failures } : null);
      // Two first failures at once: the second insert finds the row and counts on from it.
      await tx.$executeRawUnsafe(
        `INSERT INTO sign_in_account_failure (email, window_started_at, failures) VALUES ($1, $2, $3)
         ON CONFLICT (email) DO UPDATE SET window_started_at = EXCLUDED.window_started_at,
           failures = CASE WHEN $4::boolean THEN EXCLUDED.failures ELSE sign_in_account_failure.failures + 1 END`,
        email,
        next.windowStartedAt,
        next.failures,
        row !== undefined,
      );
    });
  }

  async resetAccount(email: string): Promise<void> {
    await this.db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("DELETE FROM sign_in_attempt WHERE email = $1 AND signed_in_at IS NULL", email);
      await tx.$executeRawUnsafe("UPDATE sign_in_attempt SET failures = 0, locked_until = NULL, last_failure_at = NULL WHERE email = $1", email);
      await tx.$executeRawUnsafe("DELETE FROM sign_in_account_failure WHERE email = $1", email);
    });
  }
}
