import type { AddressInfo } from "node:net";
import { request as httpRequest, type Server } from "node:http";
import { createLogger, loadConfig } from "@study/platform";
import { pgTransactionalClient } from "@study/db";
import { httpClient, validateOpenApiDocument } from "@study/testkit";
import type { Express, IRoute } from "express";
import { Pool } from "pg";
import { createApp } from "../../src/app";
import { createServiceClients, serviceAddresses } from "../../src/clients";
import { gatewayConfigSchema } from "../../src/config";
import { createIdentity } from "../../src/identity/identity";

/**
 * The gateway's HTTP surface without any backend: nothing here reaches a database or a service (the pool and
 * the gRPC clients connect lazily and are never used by these requests).
 */
function buildApp(env: Record<string, string>) {
  const config = loadConfig(gatewayConfigSchema, {
    DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none",
    RABBITMQ_URL: "amqp://127.0.0.1:1",
    COURSES_GRPC_ADDRESS: "127.0.0.1:1",
    NOTIFICATIONS_GRPC_ADDRESS: "127.0.0.1:1",
    MEDIA_GRPC_ADDRESS: "127.0.0.1:1",
    STUDY_GRPC_ADDRESS: "127.0.0.1:1",
    SEARCH_GRPC_ADDRESS: "127.0.0.1:1",
    CALENDAR_GRPC_ADDRESS: "127.0.0.1:1",
    DOCUMENTS_GRPC_ADDRESS: "127.0.0.1:1",
    BILLING_GRPC_ADDRESS: "127.0.0.1:1",
    CHAT_GRPC_ADDRESS: "127.0.0.1:1",
    AUTH_SECRET: "s".repeat(32),
    BASE_URL: "http://127.0.0.1:3000",
    CLIENT_URL: "https://app.example.com",
    TRUSTED_ORIGINS: "https://admin.example.com",
    ...env,
  });
  const pool = new Pool({ connectionString: config.DATABASE_URL });
  const db = pgTransactionalClient(pool);
  const clients = createServiceClients(config);
  const app = createApp({
    config,
    logger: createLogger("test", "silent"),
    db,
    identity: createIdentity({ pool, db, config, logger: createLogger("test", "silent"), mailer: { send: async () => undefined } }),
    clients,
    serviceAddresses: serviceAddresses(config),
  });
  return { app, close: () => Promise.all([pool.end(), ...Object.values(clients).map((c) => c.close())]) };
}

async function serve(app: Express) {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return { api: httpClient(`http://127.0.0.1:${port}`), port, close: () => new Promise((r) => server.close(r)) };
}

/** Every (method, path) express actually routes, in OpenAPI path syntax. */
function mountedRoutes(app: Express): string[] {
  // Express's route objects list the methods they answer; its type declarations leave that out.
  const routes = app.router.stack.map((layer) => layer.route as (IRoute & { methods: Record<string, boolean> }) | undefined);
  return routes
    .filter((route) => route !== undefined)
    .flatMap((route) => Object.keys(route.methods).map((method) => `${method.toUpperCase()} ${route.path.replace(/[:*](\w+)/g, "{$1}")}`));
}

describe("the gateway's HTTP surface", () => {
  const built = buildApp({ ENABLE_SWAGGER: "true", AUTH_RATE_LIMIT_PER_MINUTE: "3" });
  let server: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    server = await serve(built.app);
  });
  afterAll(async () => {
    await server.close();
    await built.close();
  });

  it("documents every mounted route in the OpenAPI 3.1 document", async () => {
    const { status, body: document } = await server.api("GET", "/openapi.json");
    expect(status).toBe(200);
    expect(document.openapi).toBe("3.1.0");
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const mounted = mountedRoutes(built.app);
    expect(mounted.length).toBeGreaterThan(10);
    expect(mounted.filter((route) => !documented.includes(route))).toEqual([]);
    expect(documented.filter((route) => !mounted.includes(route))).toEqual([]);
  });

  it("is a valid OpenAPI 3.1 document whose references resolve to components/schemas", async () => {
    const { body: document } = await server.api("GET", "/openapi.json");
    expect(await validateOpenApiDocument(document)).toEqual({ valid: true, errors: null });
    const references = [...JSON.stringify(document).matchAll(/"\$ref":"([^"]+)"/g)].map(([, target]) => target);
    expect(references.length).toBeGreaterThan(20);
    expect(references.filter((target) => !target.startsWith("#/components/schemas/"))).toEqual([]);
    expect(document.paths["/api/courses/{id}"].get.responses["200"].content["application/json"].schema.properties.data).toEqual({
      $ref: "#/components/schemas/Course",
    });
  });

  it("describes inputs and outputs from the validation schemas", async () => {
    const { body: document } = await server.api("GET", "/openapi.json");
    const create = document.paths["/api/courses"].post;
    expect(create.requestBody.content["application/json"].schema).toMatchObject({
      type: "object",
      required: ["name"],
      properties: { name: { type: "string", minLength: 1, maxLength: 255 } },
      additionalProperties: false,
    });
    expect(Object.keys(create.responses).sort()).toEqual(["201", "400", "401", "415", "500"]);
    expect(create.security).toEqual([{ bearer: [] }, { sessionCookie: [] }, { specSessionCookie: [] }]);
    const list = document.paths["/api/notifications"].get;
    expect(list.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(["query:limit", "query:includeRead"]);
    expect(document.paths["/api/courses/{id}"].get.parameters[0]).toMatchObject({ name: "id", in: "path", required: true });
    // Search forwards its parameters as the client wrote them (the search service checks them): strings, documented.
    const searchOperation = document.paths["/api/search"].get;
    const searchParameters = ["query", "types", "courseId", "limit", "offset", "minRelevance", "startDate", "endDate", "difficulty", "status"];
    expect(
      searchOperation.parameters.map((p: { name: string; in: string; schema: { type: string } }) => `${p.in}:${p.name}:${p.schema.type}`),
    ).toEqual(searchParameters.map((name) => `query:${name}:string`));
    expect(Object.keys(searchOperation.responses).sort()).toEqual(["200", "400", "401", "500"]);
    expect(searchOperation.responses["400"].description).toMatch(/INVALID_LIMIT.*INVALID_OFFSET.*INVALID_MIN_RELEVANCE.*INVALID_DATE_RANGE/);
    expect(searchOperation.responses["500"].description).toMatch(/SEARCH_FAILED/);
    expect(Object.keys(document.paths["/api/search/filters"].get.responses).sort()).toEqual(["200", "401", "500"]);
    expect(document.paths["/api/search/suggestions"].get.responses["400"].description).toMatch(/QUERY_TOO_SHORT/);
    expect(document.paths["/api/auth/signin"].post.responses["403"].description).toMatch(/ACCOUNT_LOCKED/);
  });

  it("documents 429 on every operation behind a rate limiter (found by fuzz.test.ts)", async () => {
    const { body: document } = await server.api("GET", "/openapi.json");
    const limited = [
      ["post", "/api/auth/signup"],
      ["post", "/api/auth/signin"],
      ["post", "/api/auth/verify-email/request"],
      ["post", "/api/auth/password-reset/request"],
      ["post", "/api/auth/password-reset/confirm"],
      ["get", "/api/auth/signin/{provider}"],
      ["post", "/api/auth/sign-in/social"],
      ["get", "/api/calendar/feed/{token}.ics"],
    ];
    for (const [method, path] of limited)
      expect([path, document.paths[path][method].responses["429"]?.description]).toEqual([path, expect.stringMatching(/RATE_LIMITED/)]);
    expect(document.paths["/api/courses"].post.responses["429"]).toBeUndefined();
  });

  it("documents the OAuth error report's flow as taking any value, as the route reads any (found by fuzz.test.ts)", async () => {
    const { body: document } = await server.api("GET", "/openapi.json");
    const flow = document.paths["/api/auth/oauth-error"].get.parameters.find((p: { name: string }) => p.name === "flow");
    expect(flow).toMatchObject({ in: "query", required: false });
    expect(flow.schema.enum).toBeUndefined();
    for (const query of ["flow=nonsense", "flow=mobile&flow=desktop", ""]) {
      const answer = await server.api("GET", `/api/auth/oauth-error?${query}&error=access_denied`);
      expect([query, answer.status, answer.headers.get("location")]).toEqual([
        query,
        302,
        "https://app.example.com/auth/error?code=OAUTH_ERROR&reason=access_denied",
      ]);
    }
  });

  it("sends a callback for a provider that is not offered to the OAuth error page, '.' and '..' too (found by fuzz.test.ts)", async () => {
    // Sent as written: a URL parser (fetch) would resolve the dot segments before they reach the gateway.
    const { port } = server;
    for (const provider of ["..", ".", "unknown", "%2E%2E"]) {
      const answer = await new Promise<{ status?: number; location?: string }>((resolve, reject) => {
        httpRequest({ host: "127.0.0.1", port, path: `/api/auth/callback/${provider}` }, (response) => {
          response.resume();
          resolve({ status: response.statusCode, location: response.headers.location });
        })
          .on("error", reject)
          .end();
      });
      expect({ provider, ...answer }).toEqual({
        provider,
        status: 302,
        location: "https://app.example.com/auth/error?code=OAUTH_ERROR&reason=oauth_provider_not_found",
      });
    }
  });

  it("documents the payment processor's webhook and the store notification as the only open billing endpoints", async () => {
    const { body: document } = await server.api("GET", "/openapi.json");
    const webhook = document.paths["/api/billing/webhook"].post;
    expect(webhook.security).toBeUndefined();
    expect(webhook.requestBody.content["application/json"].schema).toMatchObject({ properties: { id: { type: "string" } } });
    expect(webhook.responses["400"].description).toMatch(/WEBHOOK_FAILURE/);
    expect(document.paths["/api/store/assn"].post.security).toBeUndefined();
    for (const path of ["/api/referral/withdraw", "/api/store/confirm", "/api/billing/checkout"]) {
      expect(document.paths[path].post.security).toEqual([{ bearer: [] }, { sessionCookie: [] }, { specSessionCookie: [] }]);
    }
    expect(document.paths["/api/entitlements/me"].get.responses["200"].content["application/json"].schema.properties.data).toEqual({
      $ref: "#/components/schemas/MyEntitlement",
    });
  });

  it("serves Swagger UI at /docs when enabled", async () => {
    const redirect = await server.api("GET", "/docs");
    expect(redirect.status).toBe(301);
    const page = await server.api("GET", "/docs/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(page.body).toMatch(/swagger-ui/);
    expect((await server.api("GET", "/docs/swagger-ui.css")).status).toBe(200);
  });

  it("sets security headers and a request id on every answer, with no stack traces in errors", async () => {
    const response = await server.api("GET", "/no-such-page");
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ success: false, error: "Route GET /no-such-page not found", code: "NOT_FOUND" });
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("strict-transport-security")).toMatch(/max-age/);
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get("x-powered-by")).toBeNull();
  });

  it("allows credentials from trusted origins only", async () => {
    const trusted = await server.api("OPTIONS", "/api/courses", {
      headers: { origin: "https://admin.example.com", "access-control-request-method": "POST" },
    });
    expect(trusted.headers.get("access-control-allow-origin")).toBe("https://admin.example.com");
    expect(trusted.headers.get("access-control-allow-credentials")).toBe("true");
    const stranger = await server.api("OPTIONS", "/api/courses", {
      headers: { origin: "https://evil.example.com", "access-control-request-method": "POST" },
    });
    expect(stranger.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("rate-limits sign-in attempts per client with 429 RATE_LIMITED", async () => {
    const attempt = () => server.api("POST", "/api/auth/signin", { body: { email: "not-an-email" } });
    for (let i = 0; i < 3; i++) expect((await attempt()).status).toBe(400);
    const limited = await attempt();
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ success: false, error: expect.any(String), code: "RATE_LIMITED", action: "RETRY_LATER" });
    expect(limited.headers.get("ratelimit-policy")).toBeTruthy();
    // Sign-up is counted separately.
    expect((await server.api("POST", "/api/auth/signup", { body: {} })).status).toBe(400);
  });
});

describe("without ENABLE_SWAGGER", () => {
  it("answers 404 at /docs but still serves /openapi.json", async () => {
    const built = buildApp({});
    const server = await serve(built.app);
    try {
      expect((await server.api("GET", "/docs")).status).toBe(404);
      expect((await server.api("GET", "/docs/")).status).toBe(404);
      expect((await server.api("GET", "/openapi.json")).status).toBe(200);
    } finally {
      await server.close();
      await built.close();
    }
  });
});
