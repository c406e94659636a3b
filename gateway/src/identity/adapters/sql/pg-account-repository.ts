import type { TransactionalClient } from "@study/db";
import type { AccountRepository, LockedAccounts } from "../../application/ports/accounts.port";

/**
 * Linked accounts in better-auth's `account` table. Unlinking does not use the library's `unlinkAccount`: it
 * wants a session younger than a day and checks "not the last account" without a lock.
 */
export class PgAccountRepository implements AccountRepository {
  constructor(private readonly db: TransactionalClient) {}

  withUserLocked<T>(userId: string, work: (accounts: LockedAccounts) => Promise<T>): Promise<T> {
    return this.db.$transaction(async (tx) => {
      await tx.$queryRawUnsafe('SELECT 1 FROM "user" WHERE id = $1 FOR UPDATE', userId);
      return work({
        ids: async () => (await tx.$queryRawUnsafe<{ id: string }[]>('SELECT id FROM account WHERE "userId" = $1', userId)).map((row) => row.id),
        remove: async (accountId) => {
          await tx.$executeRawUnsafe('DELETE FROM account WHERE id = $1 AND "userId" = $2', accountId, userId);
        },
      });
    });
  }
}
