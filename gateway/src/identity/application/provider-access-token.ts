import { AppError } from "@study/platform/errors";
import { relinkNeeded, usableAccessToken, type ProviderAccessToken } from "../domain/provider-token";
import type { Clock } from "@study/platform/clock";
import { ProviderRefreshFailed, type ProviderTokens } from "./ports/provider-tokens.port";

/**
 * A user's provider access token for another service (calendar sync), so that no service reads the gateway's
 * database. An expired token is refreshed first (by the port) when a refresh token is stored.
 */
export class GetProviderAccessToken {
  constructor(
    private readonly tokens: ProviderTokens,
    private readonly clock: Clock,
  ) {}

  async execute(userId: string, provider: string): Promise<ProviderAccessToken & { accessToken: string }> {
    const accountId = await this.tokens.findAccount(userId, provider);
    if (!accountId) throw AppError.notFound(`Linked ${provider} account`);
    const token = await this.tokens.accessToken(userId, accountId).catch((error: unknown) => {
      if (error instanceof ProviderRefreshFailed) throw relinkNeeded(provider);
      throw error;
    });
    return usableAccessToken(token, provider, this.clock.now());
  }
}
