import { loadConfig } from "@study/platform";
import { enabledProviderIds, oauthErrorRedirect } from "../../../src/identity/adapters/better-auth/oauth";
import { gatewayConfigSchema } from "../../../src/config";
import { VALID_GATEWAY_SETTINGS } from "../gateway-settings";

const base = { ...VALID_GATEWAY_SETTINGS, CLIENT_URL: "https://app.example.com/" };

describe("identity-provider settings", () => {
  it("offers Google only when both its client id and secret are set (empty counts as unset)", () => {
    expect(enabledProviderIds(loadConfig(gatewayConfigSchema, base))).toEqual([]);
    expect(enabledProviderIds(loadConfig(gatewayConfigSchema, { ...base, GOOGLE_CLIENT_ID: "id" }))).toEqual([]);
    expect(enabledProviderIds(loadConfig(gatewayConfigSchema, { ...base, GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: " " }))).toEqual([]);
    expect(enabledProviderIds(loadConfig(gatewayConfigSchema, { ...base, GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "secret" }))).toEqual([
      "google",
    ]);
  });

  it("defaults to Google's issuer, the studyapp scheme and gRPC port 50050, and refuses a malformed scheme", () => {
    expect(loadConfig(gatewayConfigSchema, base)).toMatchObject({
      GOOGLE_ISSUER_URL: "https://accounts.google.com",
      APP_SCHEME: "studyapp",
      GRPC_PORT: 50050,
    });
    expect(() => loadConfig(gatewayConfigSchema, { ...base, APP_SCHEME: "study app://" })).toThrow(
      "Invalid configuration: APP_SCHEME: must be a URL scheme such as studyapp",
    );
  });

  it("sends OAUTH_ERROR to the client's error page for the web, to the app's callback for desktop and mobile", () => {
    const config = loadConfig(gatewayConfigSchema, { ...base, APP_SCHEME: "studyapp-dev" });
    expect(oauthErrorRedirect(config, "web", "access_denied")).toBe("https://app.example.com/auth/error?code=OAUTH_ERROR&reason=access_denied");
    expect(oauthErrorRedirect(config, "mobile", "invalid_code")).toBe("studyapp-dev://auth/callback?code=OAUTH_ERROR&reason=invalid_code");
  });
});
