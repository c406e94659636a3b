import { AppError } from "@study/platform/errors";

/** A provider access token handed to another service (e.g. calendar sync acting for the user). */
export interface ProviderAccessToken {
  accessToken?: string;
  expiresAt?: Date;
  scopes: string[];
}

export const relinkNeeded = (provider: string) =>
  new AppError(
    "precondition",
    "GOOGLE_CALENDAR_AUTH_ERROR",
    `The ${provider} authorization expired or was revoked: the user must link the account again`,
    {
      action: "RELINK_GOOGLE_ACCOUNT",
    },
  );

/**
 * The token when another service can use it: a missing or expired access token (there was no refresh token
 * to renew it) is useless to the caller, so the user must link the account again.
 */
export function usableAccessToken(token: ProviderAccessToken, provider: string, now: Date): ProviderAccessToken & { accessToken: string } {
  const expired = token.expiresAt !== undefined && token.expiresAt.getTime() <= now.getTime();
  if (!token.accessToken || expired) throw relinkNeeded(provider);
  return { ...token, accessToken: token.accessToken };
}
