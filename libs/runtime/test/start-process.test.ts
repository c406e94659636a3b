import { createServer } from "node:net";
import { pgTransactionalClient } from "@study/db";
import { PLATFORM_MIGRATIONS } from "@study/events";
import { status } from "@grpc/grpc-js";
import { courses } from "@study/contracts";
import { checkHealth, createClient, generateInternalAuthKeys, useServiceIdentity } from "@study/grpc";
import { createTestDatabase, freePort, testRabbitMqUrl, uniqueSuffix } from "@study/testkit";
import type { Pool } from "pg";
import { z } from "zod";
import { processConfigSchema, serviceConfigSchema, startProcess, type ProcessConfig } from "../src";

/** The three kinds of process, each started by startProcess against the shared test PostgreSQL and RabbitMQ. */
describe("startProcess", () => {
  let env: Record<string, string>;
  const stops: (() => Promise<void>)[] = [];
  const database = (_config: ProcessConfig, pool: Pool) => ({ ...pgTransactionalClient(pool), $disconnect: async () => undefined });

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase("runtime", [PLATFORM_MIGRATIONS]);
    env = { DATABASE_URL: databaseUrl, RABBITMQ_URL: testRabbitMqUrl(), EVENT_EXCHANGE: `test.${uniqueSuffix()}`, LOG_LEVEL: "silent" };
  });

  afterAll(async () => {
    for (const stop of stops) await stop();
  });

  it("a service: its gRPC services with health on GRPC_PORT", async () => {
    const service = await startProcess(
      { kind: "service", name: "runtime-service", configSchema: serviceConfigSchema, createDatabase: database, compose: async () => [] },
      { env: { ...env, GRPC_PORT: "0" }, handleSignals: false },
    );
    stops.push(() => service.lifecycle.stop());
    expect(await checkHealth(`127.0.0.1:${service.grpcPort}`)).toBe("SERVING");
  });

  it("a worker: no gRPC, its own GET /health/live served by the runtime, after the composition ran", async () => {
    const workerSchema = processConfigSchema.extend({ WORKER_HEALTH_PORT: z.coerce.number().int() });
    let composedWith: string | undefined;
    const worker = await startProcess(
      {
        kind: "worker",
        name: "runtime-worker",
        configSchema: workerSchema,
        createDatabase: database,
        healthPort: (config) => config.WORKER_HEALTH_PORT,
        async compose({ amqp }) {
          composedWith = amqp.constructor.name;
        },
      },
      { env: { ...env, WORKER_HEALTH_PORT: String(await freePort()) }, handleSignals: false },
    );
    stops.push(() => worker.lifecycle.stop());
    expect(composedWith).toBe("AmqpConnection");
    expect(worker.grpcPort).toBeUndefined();
    const live = await fetch(`http://127.0.0.1:${worker.healthPort}/health/live`);
    expect({ status: live.status, body: await live.json() }).toEqual({ status: 200, body: { status: "ok" } });
    expect((await fetch(`http://127.0.0.1:${worker.healthPort}/anything-else`)).status).toBe(404);

    await worker.lifecycle.stop();
    await expect(fetch(`http://127.0.0.1:${worker.healthPort}/health/live`)).rejects.toThrow();
  });

  it("a gateway: its gRPC API, then HTTP with the composition's handler and settings", async () => {
    const gatewaySchema = serviceConfigSchema.extend({ PORT: z.coerce.number().int() });
    const gateway = await startProcess(
      {
        kind: "gateway",
        name: "runtime-gateway",
        configSchema: gatewaySchema,
        createDatabase: database,
        async compose() {
          return {
            grpc: [],
            http: (_request, response) => response.writeHead(200, { "content-type": "text/plain" }).end("composed"),
            configureHttp: (server) => (server.keepAliveTimeout = 65_000),
          };
        },
      },
      { env: { ...env, GRPC_PORT: "0", PORT: "0" }, handleSignals: false },
    );
    stops.push(() => gateway.lifecycle.stop());
    expect(await checkHealth(`127.0.0.1:${gateway.grpcPort}`)).toBe("SERVING");
    expect(await (await fetch(`http://127.0.0.1:${gateway.httpPort}/`)).text()).toBe("composed");
  });

  it("fails to start, with the port named, when a server's port is taken", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    const port = (taken.address() as { port: number }).port;
    const starting = startProcess(
      {
        kind: "worker",
        name: "runtime-worker-port",
        configSchema: processConfigSchema.extend({ HEALTH: z.coerce.number() }),
        createDatabase: database,
        healthPort: (config) => config.HEALTH,
        compose: async () => undefined,
      },
      { env: { ...env, HEALTH: String(port) }, handleSignals: false },
    );
    await expect(starting).rejects.toThrow(String(port));
    taken.close();
  });

  it("refuses to start in production without internal-auth keys, and names a key it cannot read", async () => {
    const service = {
      kind: "service",
      name: "runtime-keys",
      configSchema: serviceConfigSchema,
      createDatabase: database,
      compose: async () => [],
    } as const;
    await expect(startProcess(service, { env: { ...env, GRPC_PORT: "0", NODE_ENV: "production" }, handleSignals: false })).rejects.toThrow(
      "Invalid configuration: INTERNAL_AUTH_KEY and INTERNAL_AUTH_PUBLIC_KEYS are required in production",
    );
    await expect(
      startProcess(service, {
        env: { ...env, GRPC_PORT: "0", INTERNAL_AUTH_KEY: "bm90IGEga2V5", INTERNAL_AUTH_PUBLIC_KEYS: "x=" },
        handleSignals: false,
      }),
    ).rejects.toThrow(/^Invalid configuration: INTERNAL_AUTH_KEY: /);
  });

  it("serves only callers with a valid service token once keys are set, on the internal bind address", async () => {
    const keys = generateInternalAuthKeys(["runtime-keyed", "gateway"]);
    const service = await startProcess(
      {
        kind: "service",
        name: "runtime-keyed",
        configSchema: serviceConfigSchema,
        createDatabase: database,
        compose: async () => [
          {
            definition: courses.CoursesServiceService,
            implementation: {
              listCourses: (_call: unknown, callback: (e: null, r: object) => void) => callback(null, courses.ListCoursesResponse.fromPartial({})),
            },
          },
        ],
      },
      {
        env: {
          ...env,
          GRPC_PORT: "0",
          INTERNAL_BIND_HOST: "127.0.0.1",
          INTERNAL_AUTH_KEY: keys.privateKeys["runtime-keyed"],
          INTERNAL_AUTH_PUBLIC_KEYS: keys.publicKeys,
        },
        handleSignals: false,
      },
    );
    stops.push(() => service.lifecycle.stop());
    const client = createClient(courses.CoursesServiceClient, courses.CoursesServiceService, `127.0.0.1:${service.grpcPort}`);
    try {
      // The process signs as itself: its own calls are trusted.
      await expect(client.listCourses({ userId: "u" })).resolves.toEqual(expect.anything());
      useServiceIdentity(undefined);
      // Refused before the handler; to the caller's own callers that is a server fault (500), never the user's 401.
      await expect(client.listCourses({ userId: "u" })).rejects.toMatchObject({ kind: "internal", cause: { code: status.UNAUTHENTICATED } });
    } finally {
      client.close();
    }
  });
});
