import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AmqpConnection, decodeEnvelope, enqueueEvents, EventPublisher, OutboxRelay, type EventEnvelope } from "@study/events";
import { eventually, startRabbitMq, uniqueSuffix, type RunningRabbitMq } from "@study/testkit";
import { connect } from "amqplib";
import { courseCreated, logger, testDatabase, type TestDb } from "./helpers";

interface OutboxRow {
  id: string;
  published_at: Date | null;
  attempts: number;
  last_error: string | null;
}

/**
 * A broker outage with the relay running: nothing is lost, the relay records its failures on the rows and keeps
 * retrying, and once the broker is back the connection heals by itself and every pending event is published.
 * Uses a private RabbitMQ node (stopping the shared one would disturb the other test files).
 */
describe("outbox relay across a broker outage", () => {
  let baseDir: string;
  let broker: RunningRabbitMq;
  let t: TestDb;
  let amqp: AmqpConnection;
  let relay: OutboxRelay;
  const exchange = `test.${uniqueSuffix()}`;
  const sink = `${exchange}.sink`;

  beforeAll(async () => {
    baseDir = mkdtempSync(join(tmpdir(), "events-outage-"));
    chmodSync(baseDir, 0o755);
    [broker, t] = await Promise.all([startRabbitMq({ baseDir }), testDatabase("events_outage")]);

    // A durable queue, bound before the outage, receives everything published to the exchange.
    const admin = await connect(broker.url);
    const channel = await admin.createChannel();
    await channel.assertExchange(exchange, "topic", { durable: true });
    await channel.assertQueue(sink, { durable: true });
    await channel.bindQueue(sink, exchange, "#");
    await admin.close();

    amqp = new AmqpConnection(broker.url, logger, "outage-test");
    await amqp.start(10_000);
    expect(amqp.isConnected).toBe(true);
    relay = new OutboxRelay({ db: t.db, databaseUrl: t.url, publisher: new EventPublisher(amqp, exchange), logger, pollIntervalMs: 100 });
    await relay.start();
    // A RabbitMQ node of its own: a few seconds on a quiet machine, much longer while CI runs other files beside it.
  }, 120_000);

  afterAll(async () => {
    await relay?.stop();
    await amqp?.close();
    await t?.close();
    // eslint-disable-next-line no-restricted-syntax -- the test may have stopped the broker already; clean-up goes on
    await broker?.stop().catch(() => undefined);
    rmSync(baseDir, { recursive: true, force: true });
  }, 30_000);

  /** Takes every message waiting in the sink queue. */
  async function drainSink(): Promise<EventEnvelope[]> {
    const connection = await connect(broker.url);
    try {
      const channel = await connection.createChannel();
      const received: EventEnvelope[] = [];
      for (let message = await channel.get(sink, { noAck: true }); message; message = await channel.get(sink, { noAck: true })) {
        received.push(decodeEnvelope(message.content));
      }
      return received;
    } finally {
      await connection.close();
    }
  }

  const rows = (ids: string[]) =>
    t.rows<OutboxRow>("SELECT id, published_at, attempts, last_error FROM outbox_message WHERE id = ANY($1::text[]) ORDER BY id", ids);

  it("keeps events while the broker is down and publishes all of them once it is back", async () => {
    // Sanity check of the path before the outage.
    const before = courseCreated("before");
    await t.db.$transaction((tx) => enqueueEvents(tx, [before]));
    const firstBatch = await eventually(async () => {
      const got = await drainSink();
      return got.length > 0 ? got : undefined;
    });
    expect(firstBatch.map((e) => e.id)).toEqual([before.id]);

    await broker.stop();
    await eventually(async () => !amqp.isConnected, 10_000);

    const events = Array.from({ length: 5 }, (_, i) => courseCreated(`outage-${i}`));
    for (const event of events) await t.db.$transaction((tx) => enqueueEvents(tx, [event]));
    const ids = events.map((e) => e.id);

    // The relay tries, fails, and says so on every row; nothing is marked published.
    const failed = await eventually(async () => {
      const current = await rows(ids);
      return current.length === 5 && current.every((row) => row.attempts > 0) ? current : undefined;
    }, 10_000);
    for (const row of failed) {
      expect(row.published_at).toBeNull();
      expect(row.last_error).toEqual(expect.any(String));
      expect(row.last_error!.length).toBeGreaterThan(0);
    }

    // The relay keeps retrying (with backoff) while the broker is down: every row is tried more than once, and
    // none is marked published. (Checked before the restart: once the connection heals, the relay drains at once.)
    await eventually(async () => (await rows(ids)).every((row) => row.attempts >= 2 && row.published_at === null), 15_000);

    await broker.restart();
    // The connection heals without any help.
    await amqp.waitUntilConnected(15_000);

    // Traffic resumes: the relay drains the backlog as the connection heals, and the next commit wakes it too
    // (NOTIFY). Left to its own timer it would get there as well, after its failure backoff of up to 10 s.
    const after = courseCreated("after");
    await t.db.$transaction((tx) => enqueueEvents(tx, [after]));
    const published = await eventually(async () => {
      const current = await rows([...ids, after.id]);
      return current.every((row) => row.published_at !== null) ? current : undefined;
    }, 10_000);
    expect(published).toHaveLength(6);

    const received = await drainSink();
    // At least once: every event arrives, none is lost (and in this outage none is duplicated either).
    expect(received.map((e) => e.id).sort()).toEqual([...ids, after.id].sort());
    expect(received.find((e) => e.id === ids[0])).toEqual(events[0]);
    // The bounds above add up to 60 s; a RabbitMQ restart alone takes 15-20 s on a busy two-core machine.
  }, 90_000);
});
