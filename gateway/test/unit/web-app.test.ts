import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, createLogger, loadConfig } from "@study/platform";
import express from "express";
import { gatewayConfigSchema } from "../../src/config";
import { errorHandler } from "../../src/http/errors";
import { WEB_APP_PATH, webAppRoutes } from "../../src/http/web-app";
import { VALID_GATEWAY_SETTINGS } from "./gateway-settings";

const LARGE_SCRIPT = `export const words = ${JSON.stringify(Array.from({ length: 2000 }, (_, i) => `word${i % 50}`))};`;

/** A web app build as Vite writes it: index.html and hashed assets. */
function fakeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), "web-app-"));
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), '<!doctype html><script type="module" src="/app/assets/index-abc123.js"></script>');
  writeFileSync(join(dir, "assets", "index-abc123.js"), "console.log('app')");
  writeFileSync(join(dir, "assets", "large-def456.js"), LARGE_SCRIPT);
  writeFileSync(join(dir, "favicon.svg"), "<svg/>");
  return dir;
}

describe("the web app the gateway serves at /app/", () => {
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    const app = express();
    app.use(WEB_APP_PATH, webAppRoutes(fakeBuild()));
    app.use(errorHandler(createLogger("web-app-test", "silent")));
    server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("answers every in-app path with index.html, never cached, since the app routes in the browser", async () => {
    for (const path of ["/app/", "/app/courses", "/app/reset-password?token=abc", "/app/auth/error?code=OAUTH_ERROR&reason=x"]) {
      const response = await fetch(`${origin}${path}`);
      expect({ path, status: response.status, cache: response.headers.get("cache-control") }).toEqual({ path, status: 200, cache: "no-cache" });
      expect(await response.text()).toContain("/app/assets/index-abc123.js");
    }
  });

  it("compresses what it sends when the browser accepts gzip", async () => {
    const response = await fetch(`${origin}/app/assets/large-def456.js`, { headers: { "Accept-Encoding": "gzip" } });
    expect(response.headers.get("content-encoding")).toBe("gzip");
    expect(await response.text()).toBe(LARGE_SCRIPT);
  });

  it("serves hashed assets for a year, and a missing asset as 404 rather than the page", async () => {
    const asset = await fetch(`${origin}/app/assets/index-abc123.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await asset.text()).toBe("console.log('app')");
    const missing = await fetch(`${origin}/app/assets/index-gone.js`);
    expect({ status: missing.status, body: await missing.json() }).toMatchObject({ status: 404, body: { success: false, code: "NOT_FOUND" } });
    expect((await fetch(`${origin}/app/favicon.svg`)).status).toBe(200);
  });

  it("refuses to start on a folder that is not a build", () => {
    const settings = { ...VALID_GATEWAY_SETTINGS, BASE_URL: "https://study.example.com", CLIENT_URL: "https://study.example.com/app" };
    expect(loadConfig(gatewayConfigSchema, { ...settings, WEB_APP_DIR: fakeBuild() }).WEB_APP_DIR).toBeDefined();
    expect(loadConfig(gatewayConfigSchema, { ...settings, WEB_APP_DIR: "" }).WEB_APP_DIR).toBeUndefined();
    expect(() => loadConfig(gatewayConfigSchema, { ...settings, WEB_APP_DIR: tmpdir() })).toThrow(ConfigError);
    expect(() => loadConfig(gatewayConfigSchema, { ...settings, WEB_APP_DIR: tmpdir() })).toThrow(/WEB_APP_DIR.*npm run build/);
  });
});
