import type { SqlClient } from "@study/db";
import type { FailureState } from "../../domain/lockout";
import type { SignInFailureRepository } from "../../application/ports/sign-in-failures.port";

/** Table sign_in_failure: one row per e-mail address with failed sign-ins. */
export class PgSignInFailureRepository implements SignInFailureRepository {
  constructor(private readonly db: SqlClient) {}

  async find(email: string): Promise<FailureState | null> {
    const [row] = await this.db.$queryRawUnsafe<{ failures: number; locked_until: Date | null }[]>(
      "SELECT failures, locked_until FROM sign_in_failure WHERE email = $1",
      email,
    );
    return row ? { failures: row.failures, lockedUntil: row.locked_until } : null;
  }

  async save(email: string, state: FailureState, at: Date): Promise<void> {
    await this.db.$executeRawUnsafe(
      `INSERT INTO sign_in_failure (email, failures, locked_until, last_failure_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (email) DO UPDATE SET failures = EXCLUDED.failures, locked_until = EXCLUDED.locked_until,
         last_failure_at = EXCLUDED.last_failure_at`,
      email,
      state.failures,
      state.lockedUntil,
      at,
    );
  }

  async remove(email: string): Promise<void> {
    await this.db.$executeRawUnsafe("DELETE FROM sign_in_failure WHERE email = $1", email);
  }
}
