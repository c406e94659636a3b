import { existsSync } from "node:fs";
import type { Infrastructure } from "./infrastructure";
import { notOurs } from "./postgres";

/**
 * PostgreSQL and RabbitMQ in containers, when a Docker engine answers (testcontainers). Returns undefined
 * without an engine, so the caller falls back to local processes.
 */
export async function startContainers(log: (line: string) => void): Promise<Infrastructure | undefined> {
  if (!process.env.DOCKER_HOST && !existsSync("/var/run/docker.sock")) return undefined;
  const { GenericContainer, Wait, getContainerRuntimeClient } = await import("testcontainers");
  try {
    await getContainerRuntimeClient();
  } catch {
    log("no working container runtime; using local processes");
    return undefined;
  }
  const [postgres, rabbitmq] = await Promise.all([
    new GenericContainer("postgres:16-alpine")
      .withEnvironment({ POSTGRES_PASSWORD: "postgres" })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
      .start(),
    new GenericContainer("rabbitmq:3-alpine")
      .withExposedPorts(5672)
      .withWaitStrategy(Wait.forLogMessage(/Server startup complete/))
      .start(),
  ]);
  const adminUrl = `postgresql://postgres:postgres@${postgres.getHost()}:${postgres.getMappedPort(5432)}/postgres`;
  const url = `amqp://guest:guest@${rabbitmq.getHost()}:${rabbitmq.getMappedPort(5672)}`;
  log(`containers: postgres ${adminUrl} · rabbitmq ${url}`);
  const databaseUrl = (name: string) => {
    const u = new URL(adminUrl);
    u.pathname = `/${name}`;
    return u.toString();
  };
  return {
    postgres: {
      adminUrl,
      databaseUrl,
      async createDatabase(name) {
        const { Client } = await import("pg");
        const client = new Client({ connectionString: adminUrl });
        await client.connect();
        await client.query(`CREATE DATABASE "${name}"`).finally(() => client.end());
        return databaseUrl(name);
      },
      stop: async () => {
        await postgres.stop();
      },
      kill: notOurs("kill"),
      restart: notOurs("restart"),
    },
    rabbitmq: {
      url,
      stop: async () => {
        await rabbitmq.stop();
      },
      restart: async () => {
        await rabbitmq.restart();
      },
      kill: async () => {
        throw new Error("cannot kill a broker in a container: stop it instead");
      },
      syncMetadata: async () => {
        await rabbitmq.exec(["rabbitmqctl", "eval", "mnesia:sync_log()."]);
      },
    },
    async stop() {
      await Promise.allSettled([postgres.stop(), rabbitmq.stop()]);
    },
  };
}
