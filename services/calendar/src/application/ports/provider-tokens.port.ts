/** Port: the user's access token at an identity provider, from the gateway's identity service. */
export interface ProviderTokens {
  /**
   * A usable Google access token of the user, or null when the user has not linked a Google account. Throws the
   * identity service's AppError when Google refused to refresh it (GOOGLE_CALENDAR_AUTH_ERROR, RELINK_GOOGLE_ACCOUNT).
   */
  googleAccessToken(userId: string): Promise<string | null>;
}
