import { gateway } from "@study/contracts";
import { startGrpcServer, unary } from "@study/grpc";
import { AppError, createLogger } from "@study/platform";

/**
 * A stand-in for the gateway's IdentityService, for services run without a gateway (the calendar's integration
 * tests): GetProviderAccessToken answers the Google access token given for a user with `link`, NOT_FOUND for a
 * user without one (as the gateway answers when no account is linked), and the refusal given with `refuse`
 * (e.g. GOOGLE_CALENDAR_AUTH_ERROR when the provider revoked the refresh token).
 */
export async function startFakeIdentity() {
  const logger = createLogger("fake-identity", "silent");
  const tokens = new Map<string, string>();
  const refusals = new Map<string, AppError>();
  const asked: string[] = [];
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    services: [
      {
        definition: gateway.IdentityServiceService,
        implementation: {
          getProviderAccessToken: unary(logger, "GetProviderAccessToken", async (request: gateway.GetProviderAccessTokenRequest) => {
            asked.push(request.userId);
            const refusal = refusals.get(request.userId);
            if (refusal) throw refusal;
            const accessToken = request.provider === "google" ? tokens.get(request.userId) : undefined;
            if (!accessToken) throw AppError.notFound("Linked account");
            return { accessToken, scopes: ["https://www.googleapis.com/auth/calendar.events"] };
          }),
        },
      },
    ],
  });
  return {
    address: `127.0.0.1:${server.port}`,
    /** The users whose token was asked for, in order. */
    asked,
    link(userId: string, accessToken: string) {
      refusals.delete(userId);
      tokens.set(userId, accessToken);
    },
    refuse(userId: string, error: AppError) {
      refusals.set(userId, error);
    },
    close: () => server.shutdown(),
  };
}

export type FakeIdentity = Awaited<ReturnType<typeof startFakeIdentity>>;
