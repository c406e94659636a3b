import { mostRecentlyUsedFirst, oldestFirst, type ActiveSession, type LinkedAccount } from "../domain/account";
import type { AccountDirectory } from "./ports/accounts.port";

export interface AccountDetailsView {
  /** Oldest first. */
  accounts: LinkedAccount[];
  /** Most recently used first; without their tokens. */
  sessions: ActiveSession[];
}

export class AccountDetails {
  constructor(private readonly directory: AccountDirectory) {}

  async execute(userId: string): Promise<AccountDetailsView> {
    const [accounts, sessions] = await Promise.all([this.directory.accounts(userId), this.directory.sessions(userId)]);
    return {
      accounts: [...accounts].sort(oldestFirst),
      sessions: sessions
        .map(({ id, createdAt, updatedAt, expiresAt, ipAddress, userAgent }) => ({ id, createdAt, updatedAt, expiresAt, ipAddress, userAgent }))
        .sort(mostRecentlyUsedFirst),
    };
  }
}
