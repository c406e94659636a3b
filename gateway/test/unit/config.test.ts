import { ConfigError, loadConfig } from "@study/platform";
import { gatewayConfigSchema } from "../../src/config";
import { VALID_GATEWAY_SETTINGS } from "./gateway-settings";

const valid = { ...VALID_GATEWAY_SETTINGS };

describe("gateway configuration", () => {
  it("applies defaults and splits the trusted origins", () => {
    const config = loadConfig(gatewayConfigSchema, { ...valid, TRUSTED_ORIGINS: "https://a.example.com, https://b.example.com" });
    expect(config).toMatchObject({
      PORT: 3000,
      SESSION_EXPIRES_IN_DAYS: 30,
      LOCKOUT_MAX_FAILURES: 5,
      GRPC_DEADLINE_MS: 5000,
      TRUSTED_ORIGINS: ["https://a.example.com", "https://b.example.com"],
    });
  });

  it("reads TRUST_PROXY as Express takes it: a switch, a number of hops, or addresses; anything else is refused at start", () => {
    const trust = (TRUST_PROXY?: string) =>
      loadConfig(gatewayConfigSchema, { ...valid, ...(TRUST_PROXY === undefined ? {} : { TRUST_PROXY }) }).TRUST_PROXY;
    expect(trust()).toBe("loopback");
    expect(trust("false")).toBe(false);
    expect(trust("true")).toBe(true);
    expect(trust("1")).toBe(1);
    expect(trust("loopback, 10.0.0.0/8,fd00::1")).toBe("loopback,10.0.0.0/8,fd00::1");
    // Express would take "1" or "false" as an address and throw on the first request.
    expect(() => trust("ingress")).toThrow(
      "Invalid configuration: TRUST_PROXY: must be true, false, a number of hops, or addresses/ranges (loopback, 10.0.0.0/8, …)",
    );
  });

  it("names the setting that is missing or wrong, in one line", () => {
    const { AUTH_SECRET: _secret, ...withoutSecret } = valid;
    expect(() => loadConfig(gatewayConfigSchema, withoutSecret)).toThrow(
      new ConfigError("Invalid configuration: AUTH_SECRET: is required but not set"),
    );
    expect(() => loadConfig(gatewayConfigSchema, { ...valid, COURSES_GRPC_ADDRESS: "courses" })).toThrow(
      "Invalid configuration: COURSES_GRPC_ADDRESS: must be host:port",
    );
    expect(() => loadConfig(gatewayConfigSchema, { ...valid, AUTH_SECRET: "short" })).toThrow(
      "Invalid configuration: AUTH_SECRET: must be at least 32 characters",
    );
  });

  it("reads each service's internal upload endpoint as an http(s) URL; empty is unset", () => {
    const config = loadConfig(gatewayConfigSchema, {
      ...valid,
      MEDIA_UPLOAD_URL: "http://media:50063",
      DOCUMENTS_UPLOAD_URL: "http://documents:50067",
    });
    expect(config).toMatchObject({ MEDIA_UPLOAD_URL: "http://media:50063", DOCUMENTS_UPLOAD_URL: "http://documents:50067" });
    expect(loadConfig(gatewayConfigSchema, { ...valid, DOCUMENTS_UPLOAD_URL: " " }).DOCUMENTS_UPLOAD_URL).toBeUndefined();
    expect(() => loadConfig(gatewayConfigSchema, { ...valid, DOCUMENTS_UPLOAD_URL: "ftp://documents" })).toThrow("DOCUMENTS_UPLOAD_URL");
  });
});
