import { AppError } from "@study/platform/errors";
import type { AccountDirectory } from "./ports/accounts.port";
import type { SessionRevoker } from "./ports/sessions.port";

export class RevokeSession<Outcome> {
  constructor(
    private readonly directory: AccountDirectory,
    private readonly revoker: SessionRevoker<Outcome>,
  ) {}

  /**
   * Ends one of the caller's active sessions (the current one too); another user's session, an expired or an
   * unknown one is NOT_FOUND.
   */
  async execute(caller: { userId: string; token: string }, sessionId: string): Promise<Outcome> {
    const session = (await this.directory.sessions(caller.userId)).find((candidate) => candidate.id === sessionId);
    if (!session) throw AppError.notFound("Session");
    return this.revoker.revoke(caller.token, session.token);
  }
}
