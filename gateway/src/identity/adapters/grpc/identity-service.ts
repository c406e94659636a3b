import { gateway as api } from "@study/contracts";
import { bindUnaryHandlers, type GrpcServiceRegistration } from "@study/grpc";
import { AppError, type Logger } from "@study/platform";
import type { GetProviderAccessToken } from "../../application/provider-access-token";

/**
 * IdentityService: other services (calendar sync) obtain a user's provider access token here rather than
 * reading the gateway's database. Only the calendar service is answered: a user's Google token is for its sync.
 */
export function identityService(getProviderAccessToken: GetProviderAccessToken, logger: Logger): GrpcServiceRegistration {
  const implementation: api.IdentityServiceServer = bindUnaryHandlers(logger, api.IdentityServiceService, {
    getProviderAccessToken: async (request) => {
      if (!request.userId || !request.provider) {
        throw AppError.validation("user_id and provider are required", [
          ...(request.userId ? [] : [{ field: "user_id", message: "is required" }]),
          ...(request.provider ? [] : [{ field: "provider", message: "is required" }]),
        ]);
      }
      const token = await getProviderAccessToken.execute(request.userId, request.provider);
      return { accessToken: token.accessToken, expiresAt: token.expiresAt, scopes: token.scopes };
    },
  });
  return { definition: api.IdentityServiceService, implementation, callers: ["calendar"] };
}
