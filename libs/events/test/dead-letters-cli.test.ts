import { execFile, execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import type { SqlClient } from "@study/db";
import { AmqpConnection, EventPublisher, listDeadLetters, queueNames, startConsumer, type EventEnvelope } from "@study/events";
import { eventually, testRabbitMqUrl, uniqueSuffix } from "@study/testkit";
import { connect, type ChannelModel } from "amqplib";
import { parseArguments, USAGE } from "../src/cli/dead-letters";
import { courseCreated, courseDeleted, logger } from "./helpers";

const ROOT = resolve(__dirname, "..", "..", "..");
const CLI = join(ROOT, "libs", "events", "dist", "cli", "dead-letters.js");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], env: NodeJS.ProcessEnv = { ...process.env, RABBITMQ_URL: testRabbitMqUrl() }): Promise<Run> {
  return new Promise((done) => {
    // The bound ends a hang; starting node and the CLI's modules takes a second on a quiet machine, far more under load.
    execFile(process.execPath, [CLI, ...args], { cwd: ROOT, env, timeout: 50_000 }, (error, stdout, stderr) => {
      const code = error ? Number((error as { code?: unknown }).code ?? 1) : 0;
      done({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

describe("dead-letters CLI", () => {
  const exchange = `test.${uniqueSuffix()}`;
  const consumer = `cli${uniqueSuffix()}`;
  const names = queueNames(exchange, consumer);
  let admin: ChannelModel;
  let poisoned: EventEnvelope[];

  const depth = async (queue: string) => {
    const channel = await admin.createChannel();
    try {
      return (await channel.checkQueue(queue)).messageCount;
    } finally {
      await channel.close();
    }
  };

  beforeAll(async () => {
    // The CLI runs from dist/: build this lib (and what it references) first.
    execFileSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-b", "libs/events"], { cwd: ROOT, stdio: "pipe" });
    admin = await connect(testRabbitMqUrl());

    // Two events dead-lettered by a real consumer whose handler always fails (one attempt each).
    const amqp = new AmqpConnection(testRabbitMqUrl(), logger, consumer);
    await amqp.start(5_000);
    const failing = async () => {
      throw new Error("handler bug: cannot read 'name'");
    };
    const running = await startConsumer<SqlClient>({
      connection: amqp,
      consumer,
      // The handler fails inside the transaction; no database is needed for that.
      db: { $transaction: (fn) => fn({ $executeRawUnsafe: async () => 1, $queryRawUnsafe: async <T>() => [] as T }) },
      handlers: { courseCreated: failing, courseDeleted: failing },
      logger,
      exchange,
      maxAttempts: 1,
    });
    poisoned = [courseCreated("cli-1"), courseDeleted("cli-2")];
    await new EventPublisher(amqp, exchange).publish(poisoned);
    await eventually(async () => (await depth(names.dead)) === 2);
    // Stop consuming, so replayed messages stay in the main queue where the test can count them. The originals are
    // acked just after their copies reach the dead-letter queue: closing before that would requeue them to main.
    await running.idle();
    await amqp.close();
  }, 60_000);

  afterAll(async () => {
    const channel = await admin.createChannel();
    for (const queue of [names.main, names.retry, names.dead]) await channel.deleteQueue(queue);
    await channel.deleteExchange(exchange);
    await admin.close();
  });

  it("lists dead letters as JSON lines without removing them", async () => {
    const run = await runCli(["list", consumer, "--exchange", exchange]);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    const lines = run.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.sort((a, b) => a.type.localeCompare(b.type))).toEqual([
      { eventId: poisoned[0].id, type: "courses.course.created.v1", attempts: 1, lastError: "handler bug: cannot read 'name'" },
      { eventId: poisoned[1].id, type: "courses.course.deleted.v1", attempts: 1, lastError: "handler bug: cannot read 'name'" },
    ]);
    expect(await depth(names.dead)).toBe(2);
    // The same view as the library function.
    expect(await listDeadLetters(admin, exchange, consumer)).toHaveLength(2);
  });

  it("accepts --exchange=<name> too", async () => {
    const run = await runCli(["list", consumer, `--exchange=${exchange}`]);
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split("\n")).toHaveLength(2);
  });

  it("replays every dead letter to the consumer's queue and prints the count", async () => {
    // Delivery is at least once: an original whose ack was lost (a connection dropped under load) is back in the main
    // queue too. The replay adds exactly the dead letters to what is there.
    const before = await depth(names.main);
    const run = await runCli(["replay", consumer, "--exchange", exchange]);
    expect(run).toEqual({ code: 0, stdout: "2\n", stderr: "" });
    expect(await depth(names.dead)).toBe(0);
    expect(await depth(names.main)).toBe(before + 2);

    // Nothing left: list prints nothing, replay prints 0.
    expect(await runCli(["list", consumer, "--exchange", exchange])).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(await runCli(["replay", consumer, "--exchange", exchange])).toEqual({ code: 0, stdout: "0\n", stderr: "" });
  });

  it.each([
    [[]],
    [["list"]],
    [["purge", "notifications"]],
    [["list", "--exchange", "x"]],
    [["list", "notifications", "--exchange"]],
    [["list", "notifications", "--verbose"]],
  ])("answers bad arguments %j with the usage line and exit code 2", async (args) => {
    const run = await runCli(args);
    expect(run).toEqual({ code: 2, stdout: "", stderr: `${USAGE}\n` });
    expect(USAGE).toMatch(/^usage: dead-letters <list\|replay> <consumer> \[--exchange <name>\]/);
  });

  it("refuses to run without a valid RABBITMQ_URL (one line, exit 1)", async () => {
    const env = { ...process.env };
    delete env.RABBITMQ_URL;
    expect(await runCli(["list", consumer], env)).toEqual({
      code: 1,
      stdout: "",
      stderr: "Invalid configuration: RABBITMQ_URL: is required but not set\n",
    });
    expect(await runCli(["list", consumer], { ...env, RABBITMQ_URL: "http://localhost:15672" })).toEqual({
      code: 1,
      stdout: "",
      stderr: "Invalid configuration: RABBITMQ_URL: must be an amqp:// URL\n",
    });
  });

  it("says so when the consumer has no dead-letter queue on that exchange (exit 1)", async () => {
    const run = await runCli(["list", "nobody", "--exchange", exchange]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`No dead-letter queue ${exchange}.nobody.dlq: is "nobody" a consumer of exchange ${exchange}?\n`);
  });

  it("parses its arguments, defaulting the exchange to study.events", () => {
    expect(parseArguments(["list", "notifications"])).toEqual({ action: "list", consumer: "notifications", exchange: "study.events" });
    expect(parseArguments(["replay", "notifications", "--exchange", "test.x"])).toEqual({
      action: "replay",
      consumer: "notifications",
      exchange: "test.x",
    });
    expect(parseArguments(["replay", "notifications", "--exchange=test.y"])).toEqual({
      action: "replay",
      consumer: "notifications",
      exchange: "test.y",
    });
    expect(parseArguments(["replay", "notifications", "--exchange="])).toBeUndefined();
    expect(parseArguments(["LIST", "notifications"])).toBeUndefined();
  });
});
