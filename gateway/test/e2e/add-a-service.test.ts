/**
 * The recipe "Adding a service" of docs/development.md, followed once for real: a throw-away service
 * (gateway/test/fixtures/throwaway, started through libs/runtime like every service) is added by its
 * catalogue entry only. The stack runner and the gateway take the catalogue as an option; nothing else in
 * the stack or the gateway names the new service.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { transformFileSync } from "@swc/core";
import { checkHealth } from "@study/grpc";
import { startTestStack, type TestStack } from "@study/testkit";
import { Client } from "pg";
import { THROWAWAY_CATALOGUE } from "../fixtures/throwaway/catalogue";

const FIXTURE = join(__dirname, "..", "fixtures", "throwaway");

/** The fixture's TypeScript as the build would leave it: dist/*.js beside its migrations/. */
function buildFixture(): void {
  mkdirSync(join(FIXTURE, "dist"), { recursive: true });
  for (const file of readdirSync(FIXTURE).filter((name) => name.endsWith(".ts"))) {
    const { code } = transformFileSync(join(FIXTURE, file), {
      jsc: { parser: { syntax: "typescript" }, target: "es2022" },
      module: { type: "commonjs" },
      swcrc: false,
    });
    writeFileSync(join(FIXTURE, "dist", file.replace(/\.ts$/, ".js")), code);
  }
}

describe("adding a service by its catalogue entry only", () => {
  let stack: TestStack;

  beforeAll(async () => {
    buildFixture();
    stack = await startTestStack({
      catalogue: THROWAWAY_CATALOGUE,
      gatewayEntry: "gateway/test/fixtures/throwaway/dist/gateway.js",
      without: ["media-worker"],
    });
  }, 180_000);

  afterAll(async () => {
    await stack?.stopAll();
  });

  it("the stack migrates and starts it, and the gateway's GET /health lists it SERVING", async () => {
    expect(await checkHealth(stack.serviceAddresses.throwaway)).toBe("SERVING");

    const client = new Client({ connectionString: stack.databaseUrl("throwaway") });
    await client.connect();
    const { rows } = await client.query("SELECT to_regclass('throwaway_note') IS NOT NULL AS migrated");
    await client.end();
    expect(rows).toEqual([{ migrated: true }]);

    const response = await fetch(`${stack.gatewayUrl}/health`);
    const body = await response.json();
    expect({ status: response.status, services: body.services }).toEqual({
      status: 200,
      services: Object.fromEntries(THROWAWAY_CATALOGUE.map((entry) => [entry.name, "SERVING"])),
    });
  });
});
