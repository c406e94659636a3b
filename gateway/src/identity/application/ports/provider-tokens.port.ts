import type { ProviderAccessToken } from "../../domain/provider-token";

/** Thrown by `accessToken` when the provider refused to refresh it (access revoked, refresh token expired). */
export class ProviderRefreshFailed extends Error {}

/** The provider tokens stored with the user's linked accounts. */
export interface ProviderTokens {
  /** The id of the user's account at this provider, if linked. */
  findAccount(userId: string, provider: string): Promise<string | null>;
  /** The stored access token, refreshed first when it has expired and a refresh token is stored. */
  accessToken(userId: string, accountId: string): Promise<ProviderAccessToken>;
}
