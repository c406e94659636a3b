import { gateway } from "@study/contracts";
import { createClient } from "@study/grpc";
import { isAppError } from "@study/platform/errors";
import type { ProviderTokens } from "../../application/ports/provider-tokens.port";

/** The gateway's IdentityService, which keeps the users' linked accounts and refreshes their tokens. */
export class GrpcProviderTokens implements ProviderTokens {
  private readonly client;

  constructor(address: string, deadlineMs = 10_000) {
    this.client = createClient(gateway.IdentityServiceClient, gateway.IdentityServiceService, address, { deadlineMs });
  }

  async googleAccessToken(userId: string): Promise<string | null> {
    try {
      return (await this.client.getProviderAccessToken({ userId, provider: "google" })).accessToken;
    } catch (error) {
      // No Google account linked: not an error of the call, an answer.
      if (isAppError(error) && error.kind === "not_found") return null;
      throw error;
    }
  }

  close(): void {
    this.client.close();
  }
}
