import { gateway as api } from "@study/contracts";
import { unary, type GrpcServiceRegistration } from "@study/grpc";
import { AppError, type Logger } from "@study/platform";
import { APIError } from "better-auth";
import type { Auth } from "../auth/auth";

const relinkNeeded = (provider: string) =>
  new AppError("precondition", "GOOGLE_CALENDAR_AUTH_ERROR", `The ${provider} authorization expired or was revoked: the user must link the account again`, {
    action: "RELINK_GOOGLE_ACCOUNT",
  });

/**
 * IdentityService: other services (calendar sync) obtain a user's provider access token here rather than
 * reading the gateway's database. The auth library decrypts the stored token and, when it has expired,
 * refreshes it with the stored refresh token and stores the new one.
 */
export function identityService(auth: Auth, logger: Logger): GrpcServiceRegistration {
  const implementation: api.IdentityServiceServer = {
    getProviderAccessToken: unary(logger, "GetProviderAccessToken", async (request: api.GetProviderAccessTokenRequest) => {
      if (!request.userId || !request.provider) {
        throw AppError.validation("user_id and provider are required", [
          ...(request.userId ? [] : [{ field: "user_id", message: "is required" }]),
          ...(request.provider ? [] : [{ field: "provider", message: "is required" }]),
        ]);
      }
      const { internalAdapter } = await auth.$context;
      const account = (await internalAdapter.findAccounts(request.userId)).find((candidate) => candidate.providerId === request.provider);
      if (!account) throw AppError.notFound(`Linked ${request.provider} account`);

      const token = await auth.api.getAccessToken({ body: { accountId: account.id, userId: request.userId } }).catch((error: unknown) => {
        // The library reports any failed refresh (invalid_grant: access revoked, refresh token expired) this way.
        if (error instanceof APIError && (error.body as { code?: string } | undefined)?.code === "FAILED_TO_GET_ACCESS_TOKEN") {
          throw relinkNeeded(request.provider);
        }
        throw error;
      });
      // Without a refresh token an expired access token is returned as it is: it would be useless to the caller.
      const expired = token.accessTokenExpiresAt !== undefined && token.accessTokenExpiresAt.getTime() <= Date.now();
      if (!token.accessToken || expired) throw relinkNeeded(request.provider);
      return { accessToken: token.accessToken, expiresAt: token.accessTokenExpiresAt, scopes: token.scopes };
    }),
  };
  return { definition: api.IdentityServiceService, implementation };
}
