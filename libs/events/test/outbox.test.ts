import { AmqpConnection, enqueueEvents, EventPublisher, OutboxRelay, type EventEnvelope } from "@study/events";
import { captureEvents, eventually, testRabbitMqUrl, uniqueSuffix, type EventCapture } from "@study/testkit";
import { courseCreated, courseDeleted, logger, testDatabase, type TestDb } from "./helpers";

interface OutboxRow {
  id: string;
  type: string;
  published_at: Date | null;
  attempts: number;
  last_error: string | null;
}

describe("outbox + relay", () => {
  let t: TestDb;
  let exchange: string;
  let capture: EventCapture;
  let amqp: AmqpConnection;
  let relay: OutboxRelay;

  beforeAll(async () => {
    exchange = `test.${uniqueSuffix()}`;
    t = await testDatabase("events_outbox");
    await t.db.$executeRawUnsafe("CREATE TABLE course (id text PRIMARY KEY, name text NOT NULL)");
    capture = await captureEvents(testRabbitMqUrl(), exchange);
    amqp = new AmqpConnection(testRabbitMqUrl(), logger, "outbox-test");
    await amqp.start(5_000);
    relay = new OutboxRelay({ db: t.db, databaseUrl: t.url, publisher: new EventPublisher(amqp, exchange), logger, pollIntervalMs: 200 });
    await relay.start();
  });
  afterAll(async () => {
    await relay?.stop();
    await amqp?.close();
    await capture?.close();
    await t?.close();
  });

  const captured = (id: string) => capture.events.filter((event) => event.id === id);
  const outboxRow = async (id: string) =>
    (await t.rows<OutboxRow>("SELECT id, type, published_at, attempts, last_error FROM outbox_message WHERE id = $1", id))[0];

  it("publishes an event enqueued with a state change, and marks its row published", async () => {
    const event = courseCreated(1);
    await t.db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("INSERT INTO course (id, name) VALUES ($1, $2)", "course-1", "Course 1");
      await enqueueEvents(tx, [event]);
    });

    const received = await eventually(async () => captured(event.id)[0]);
    // The envelope survives outbox JSON + protobuf on the wire unchanged.
    expect(received).toEqual(event);
    expect(received.payload).toEqual({
      $case: "courseCreated",
      value: { course: { id: "course-1", name: "Course 1", code: "C1" }, description: "about 1" },
    });

    const row = await eventually(async () => {
      const current = await outboxRow(event.id);
      return current?.published_at ? current : undefined;
    });
    expect(row).toMatchObject({ id: event.id, type: "courses.course.created.v1", attempts: 0, last_error: null });
    expect(row.published_at).toBeInstanceOf(Date);
    expect(captured(event.id)).toHaveLength(1);
  });

  it("stores the envelope as protobuf JSON in the outbox row", async () => {
    const event = courseDeleted(2, "bob");
    await t.db.$transaction((tx) => enqueueEvents(tx, [event]));
    const [row] = await t.rows<{ payload: Record<string, unknown> }>("SELECT payload FROM outbox_message WHERE id = $1", event.id);
    expect(row.payload).toMatchObject({
      id: event.id,
      type: "courses.course.deleted.v1",
      source: "courses",
      userId: "bob",
      occurredAt: event.occurredAt!.toISOString(),
      courseDeleted: { courseId: "course-2", name: "Course 2" },
    });
    await eventually(async () => captured(event.id).length === 1);
  });

  it("publishes several events of one transaction in their order", async () => {
    const events = [courseCreated("a"), courseDeleted("a"), courseCreated("b"), courseDeleted("b")];
    await t.db.$transaction((tx) => enqueueEvents(tx, events));
    await eventually(async () => events.every((event) => captured(event.id).length === 1));
    const ids = new Set(events.map((event) => event.id));
    expect(capture.events.filter((event) => ids.has(event.id)).map((event) => event.id)).toEqual(events.map((event) => event.id));
  });

  it("publishes nothing from a rolled-back transaction", async () => {
    const rolledBack = courseCreated("rolled-back");
    await expect(
      t.db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe("INSERT INTO course (id, name) VALUES ($1, $2)", "course-rb", "Never");
        await enqueueEvents(tx, [rolledBack]);
        throw new Error("use case failed after enqueueing");
      }),
    ).rejects.toThrow("use case failed after enqueueing");

    // A later committed event goes through; by then the relay has seen every committed row.
    const committed = courseCreated("after-rollback");
    await t.db.$transaction((tx) => enqueueEvents(tx, [committed]));
    await eventually(async () => captured(committed.id).length === 1);
    await relay.kick();

    expect(captured(rolledBack.id)).toEqual([]);
    expect(await outboxRow(rolledBack.id)).toBeUndefined();
    expect(await t.rows("SELECT id FROM course WHERE id = 'course-rb'")).toEqual([]);
  });

  it("publishes each row once when two relays run side by side (SKIP LOCKED)", async () => {
    const secondConnection = new AmqpConnection(testRabbitMqUrl(), logger, "outbox-test-2");
    await secondConnection.start(5_000);
    const second = new OutboxRelay({
      db: t.db,
      databaseUrl: t.url,
      publisher: new EventPublisher(secondConnection, exchange),
      logger,
      pollIntervalMs: 50,
      batchSize: 3,
    });
    await second.start();
    try {
      const events: EventEnvelope[] = [];
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const batch = [courseCreated(`par-${i}-1`), courseCreated(`par-${i}-2`), courseCreated(`par-${i}-3`)];
          events.push(...batch);
          await t.db.$transaction((tx) => enqueueEvents(tx, batch));
        }),
      );
      await eventually(async () => events.every((event) => captured(event.id).length >= 1));
      // Both relays run full passes after that (kick waits for a pass under way, the second kick is a fresh
      // one): any duplicate they publish is confirmed by the broker before a sentinel enqueued afterwards, so
      // once the sentinel is captured from the same queue, every duplicate would have been too.
      await Promise.all(
        [relay, second].map(async (r) => {
          await r.kick();
          await r.kick();
        }),
      );
      const sentinel = courseCreated("par-sentinel");
      await t.db.$transaction((tx) => enqueueEvents(tx, [sentinel]));
      await eventually(async () => captured(sentinel.id).length === 1);
      expect(events.map((event) => captured(event.id).length)).toEqual(events.map(() => 1));
      const [{ pending }] = await t.rows<{ pending: number }>("SELECT count(*)::int AS pending FROM outbox_message WHERE published_at IS NULL");
      expect(pending).toBe(0);
    } finally {
      await second.stop();
      await secondConnection.close();
    }
  });
});

describe("outbox relay wake-up and retention", () => {
  let t: TestDb;
  let exchange: string;
  let capture: EventCapture;
  let amqp: AmqpConnection;

  beforeAll(async () => {
    exchange = `test.${uniqueSuffix()}`;
    t = await testDatabase("events_outbox_notify");
    capture = await captureEvents(testRabbitMqUrl(), exchange);
    amqp = new AmqpConnection(testRabbitMqUrl(), logger, "outbox-notify-test");
    await amqp.start(5_000);
  });
  afterAll(async () => {
    await amqp?.close();
    await capture?.close();
    await t?.close();
  });

  it("is woken by the commit (LISTEN/NOTIFY) instead of waiting for its next poll", async () => {
    const relay = new OutboxRelay({ db: t.db, databaseUrl: t.url, publisher: new EventPublisher(amqp, exchange), logger, pollIntervalMs: 60_000 });
    // Waiting before the relay starts: only its start-up pass can publish it (nobody listens to its NOTIFY yet).
    const waiting = courseCreated("before-start");
    await t.db.$transaction((tx) => enqueueEvents(tx, [waiting]));
    await relay.start();
    try {
      // The start-up pass has published; the next poll is a minute away.
      await eventually(async () => capture.events.some((e) => e.id === waiting.id), 5_000);
      const event = courseCreated("notify");
      const committedAt = Date.now();
      await t.db.$transaction((tx) => enqueueEvents(tx, [event]));
      await eventually(async () => capture.events.some((e) => e.id === event.id), 5_000);
      expect(Date.now() - committedAt).toBeLessThan(5_000);
    } finally {
      await relay.stop();
    }
  });

  it("deletes published rows past the retention period and keeps pending ones", async () => {
    const old = courseCreated("old");
    const oldPending = courseCreated("old-pending");
    await t.db.$transaction((tx) => enqueueEvents(tx, [old, oldPending]));
    await t.db.$executeRawUnsafe(
      "UPDATE outbox_message SET published_at = now() - interval '100 hours', created_at = now() - interval '100 hours' WHERE id = $1",
      old.id,
    );
    const recent = courseCreated("recent");
    await t.db.$transaction((tx) => enqueueEvents(tx, [recent]));
    await t.db.$executeRawUnsafe("UPDATE outbox_message SET published_at = now() - interval '1 hour' WHERE id = $1", recent.id);

    // A fresh relay publishes the pending row, then cleans up once.
    const relay = new OutboxRelay({
      db: t.db,
      databaseUrl: t.url,
      publisher: new EventPublisher(amqp, exchange),
      logger,
      pollIntervalMs: 60_000,
      retentionHours: 72,
    });
    await relay.start();
    try {
      await eventually(async () => capture.events.some((e) => e.id === oldPending.id));
      await relay.kick();
      const ids = (await t.rows<{ id: string }>("SELECT id FROM outbox_message")).map((row) => row.id);
      expect(ids).not.toContain(old.id);
      expect(ids).toEqual(expect.arrayContaining([oldPending.id, recent.id]));
      // Published rows are never published again: a sentinel published after those passes has been captured.
      const sentinel = courseCreated("retention-sentinel");
      await t.db.$transaction((tx) => enqueueEvents(tx, [sentinel]));
      await eventually(async () => capture.events.some((e) => e.id === sentinel.id));
      expect(capture.events.some((e) => e.id === old.id || e.id === recent.id)).toBe(false);
    } finally {
      await relay.stop();
    }
  });
});
