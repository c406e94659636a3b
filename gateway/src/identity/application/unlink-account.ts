import { assertUnlinkable } from "../domain/account";
import type { AccountRepository } from "./ports/accounts.port";

export class UnlinkAccount {
  constructor(private readonly accounts: AccountRepository) {}

  /**
   * Unlinks one of the user's accounts unless it is their last way to sign in. The check and the delete run
   * under a lock on the user, so two parallel unlinks cannot remove both of two accounts.
   */
  async execute(userId: string, accountId: string): Promise<void> {
    await this.accounts.withUserLocked(userId, async (locked) => {
      assertUnlinkable(await locked.ids(), accountId);
      await locked.remove(accountId);
    });
  }
}
