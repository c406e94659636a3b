import type { Socket } from "node:net";
import type { SqlClient } from "@study/db";
import {
  AmqpConnection,
  EventPublisher,
  listDeadLetters,
  queueNames,
  replayDeadLetters,
  startConsumer,
  type EventHandlers,
  type EventEnvelope,
  type InboxDatabase,
} from "@study/events";
import { eventually, testRabbitMqUrl, uniqueSuffix } from "@study/testkit";
import { connect, type ChannelModel } from "amqplib";
import { courseCreated, courseDeleted, courseUpdated, logger, testDatabase, type TestDb } from "./helpers";

/**
 * startConsumer with an inbox, over a real broker and database: exactly-once effects for duplicate deliveries,
 * retries through the retry queue, dead letters (list/replay), and no ack for a message whose handling failed.
 * Every test has its own exchange, consumer and queues.
 */
describe("consumer with inbox, retries and dead letters", () => {
  let t: TestDb;
  let admin: ChannelModel;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    t = await testDatabase("events_consumer");
    await t.db.$executeRawUnsafe("CREATE TABLE effect (consumer text NOT NULL, event_id text NOT NULL, note text NOT NULL)");
    admin = await connect(testRabbitMqUrl());
  });
  afterAll(async () => {
    try {
      // eslint-disable-next-line no-restricted-syntax -- clean-up after the suite: one failing step must not skip the others or hide the outcome
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
      await admin?.close();
    } finally {
      await t?.close();
    }
  });

  /** The inbox database, recording the outcome of every handling transaction (true: handled, false: duplicate). */
  function recordingDb() {
    const outcomes: boolean[] = [];
    const db: InboxDatabase<SqlClient> = {
      async $transaction<R>(fn: (tx: SqlClient) => Promise<R>, options?: { timeout?: number; maxWait?: number }) {
        const result = await t.db.$transaction(fn, options);
        // eslint-disable-next-line no-restricted-syntax -- the consumer's inbox transaction answers whether it handled the event
        outcomes.push(result as unknown as boolean);
        return result;
      },
    };
    return { db, outcomes };
  }

  /**
   * A consumer on a fresh exchange, with a publisher and an admin view of its queues.
   *
   * With `sentinel`, it handles one message at a time and also handles courseUpdated sentinels, each failing
   * its first attempt: `sentinelHandled()` publishes one and waits until it is handled. By then everything
   * queued before it, in the main queue or (with the same delay) in the retry queue, has been handled, so a test
   * can assert that nothing more happened without waiting for a fixed time.
   */
  async function consumerFixture(
    handlers: (consumer: string) => EventHandlers<SqlClient>,
    onDeadLetter?: (envelope: EventEnvelope, lastError: string) => Promise<void>,
    options: { sentinel?: boolean; retryDelaysMs?: number[] } = {},
  ) {
    const exchange = `test.${uniqueSuffix()}`;
    const consumer = `c${uniqueSuffix()}`;
    const names = queueNames(exchange, consumer);
    const amqp = new AmqpConnection(testRabbitMqUrl(), logger, consumer);
    await amqp.start(5_000);
    const { db, outcomes } = recordingDb();
    const sentinelAttempts = new Map<string, number>();
    const sentinelsHandled = new Set<string>();
    const sentinelHandler: EventHandlers<SqlClient> = {
      courseUpdated: async (_payload, envelope) => {
        const attempt = (sentinelAttempts.get(envelope.id) ?? 0) + 1;
        sentinelAttempts.set(envelope.id, attempt);
        // Through the retry queue like any retry, so that retries scheduled before it are flushed too.
        if (attempt === 1) throw new Error("sentinel: first attempt fails on purpose");
        sentinelsHandled.add(envelope.id);
      },
    };
    const running = await startConsumer({
      connection: amqp,
      consumer,
      db,
      handlers: options.sentinel ? { ...handlers(consumer), ...sentinelHandler } : handlers(consumer),
      logger,
      exchange,
      maxAttempts: 3,
      retryDelaysMs: options.retryDelaysMs ?? [50],
      onDeadLetter,
      prefetch: options.sentinel ? 1 : undefined,
    });
    const publisher = new EventPublisher(amqp, exchange);
    cleanups.push(async () => {
      await amqp.close();
      const channel = await admin.createChannel();
      for (const queue of [names.main, names.retry, names.dead]) await channel.deleteQueue(queue);
      await channel.deleteExchange(exchange);
      await channel.close();
    });
    const queueDepth = async (queue: string) => {
      const channel = await admin.createChannel();
      try {
        return (await channel.checkQueue(queue)).messageCount;
      } finally {
        await channel.close();
      }
    };
    return {
      exchange,
      consumer,
      names,
      amqp,
      outcomes,
      publish: (...envelopes: EventEnvelope[]) => publisher.publish(envelopes),
      deadLetters: () => listDeadLetters(admin, exchange, consumer),
      queueDepth,
      idle: () => running.idle(),
      async sentinelHandled() {
        if (!options.sentinel) throw new Error("consumerFixture: created without a sentinel handler");
        const sentinel = courseUpdated(`sentinel-${sentinelsHandled.size}`);
        await publisher.publish([sentinel]);
        await eventually(async () => sentinelsHandled.has(sentinel.id));
      },
    };
  }

  /** Writes the handler's effect in the handler's transaction. */
  const writeEffect = (tx: SqlClient, consumer: string, envelope: EventEnvelope, note: string) =>
    tx.$executeRawUnsafe("INSERT INTO effect (consumer, event_id, note) VALUES ($1, $2, $3)", consumer, envelope.id, note);

  const effects = (consumer: string) =>
    t.rows<{ event_id: string; note: string }>("SELECT event_id, note FROM effect WHERE consumer = $1 ORDER BY note", consumer);
  /** The consumer's inbox rows, sentinels (courseUpdated, see consumerFixture) left out. */
  const inbox = (consumer: string) =>
    t.rows<{ event_id: string; type: string }>(
      "SELECT event_id, type FROM inbox_message WHERE consumer = $1 AND type <> 'courses.course.updated.v1'",
      consumer,
    );

  it("handles an event once although the same envelope is delivered three times", async () => {
    const invocations: string[] = [];
    const f = await consumerFixture((consumer) => ({
      courseCreated: async (payload, envelope, tx) => {
        invocations.push(envelope.id);
        await writeEffect(tx, consumer, envelope, payload.course?.name ?? "?");
      },
    }));
    const event = courseCreated("dup");
    await f.publish(event, event, event);

    // Three deliveries, each in a transaction: one handled, two recognised as duplicates.
    await eventually(async () => f.outcomes.length === 3);
    expect([...f.outcomes].sort()).toEqual([false, false, true]);
    expect(invocations).toEqual([event.id]);
    expect(await effects(f.consumer)).toEqual([{ event_id: event.id, note: "Course dup" }]);
    expect(await inbox(f.consumer)).toEqual([{ event_id: event.id, type: "courses.course.created.v1" }]);

    // A different event is handled normally; all acked, none retried or dead.
    const other = courseCreated("other");
    await f.publish(other);
    await eventually(async () => (await effects(f.consumer)).length === 2);
    expect(await f.deadLetters()).toEqual([]);
    expect(await f.queueDepth(f.names.main)).toBe(0);
    expect(await f.queueDepth(f.names.retry)).toBe(0);
  });

  it("only receives the event types it has handlers for", async () => {
    const seen: string[] = [];
    const f = await consumerFixture(
      () => ({
        courseDeleted: async (payload) => {
          seen.push(payload.courseId);
        },
      }),
      undefined,
      { sentinel: true },
    );
    await f.publish(courseCreated("ignored"), courseDeleted("wanted"));
    await eventually(async () => seen.length === 1);
    await f.sentinelHandled();
    expect(seen).toEqual(["course-wanted"]);
    expect(f.outcomes).toEqual([true, true]); // the wanted event, then the sentinel
    expect(await f.deadLetters()).toEqual([]);
  });

  it("retries a failing handler, dead-letters it after maxAttempts without half-written effects, and replays it", async () => {
    let fixed = false;
    const attempts: number[] = [];
    const givenUp: { eventId: string; lastError: string; attemptsSoFar: number }[] = [];
    const f = await consumerFixture(
      (consumer) => ({
        courseCreated: async (_payload, envelope, tx) => {
          attempts.push(Date.now());
          // The effect is written first, then the handler fails: the transaction must undo it.
          await writeEffect(tx, consumer, envelope, `attempt ${attempts.length}`);
          if (!fixed) throw new Error(`grading service rejected ${envelope.id}`);
        },
      }),
      async (envelope, lastError) => {
        givenUp.push({ eventId: envelope.id, lastError, attemptsSoFar: attempts.length });
      },
      { sentinel: true },
    );
    const event = courseCreated("poison");
    await f.publish(event);

    const [letter] = await eventually(async () => {
      const letters = await f.deadLetters();
      return letters.length > 0 ? letters : undefined;
    });
    expect(letter).toEqual({
      eventId: event.id,
      type: "courses.course.created.v1",
      attempts: 3,
      lastError: `grading service rejected ${event.id}`,
    });
    expect(attempts).toHaveLength(3);
    // The dead-letter hook ran once, after the last attempt, with the last error.
    expect(givenUp).toEqual([{ eventId: event.id, lastError: `grading service rejected ${event.id}`, attemptsSoFar: 3 }]);
    // Each retry went through the retry queue's delay (50 ms).
    for (let i = 1; i < attempts.length; i++) expect(attempts[i] - attempts[i - 1]).toBeGreaterThanOrEqual(40);
    expect(f.outcomes).toEqual([]);
    expect(await effects(f.consumer)).toEqual([]);
    expect(await inbox(f.consumer)).toEqual([]);

    // Listing does not consume: the letter is still there, and nothing else is retried meanwhile (a sentinel
    // sent through the retry queue after the letter has been handled).
    await f.sentinelHandled();
    expect(await f.deadLetters()).toHaveLength(1);
    expect(attempts).toHaveLength(3);
    expect(await f.queueDepth(f.names.retry)).toBe(0);

    // Fixed handler + replay: handled once, with a fresh attempt count.
    fixed = true;
    expect(await replayDeadLetters(admin, f.exchange, f.consumer)).toBe(1);
    await eventually(async () => (await effects(f.consumer)).length === 1);
    expect(await effects(f.consumer)).toEqual([{ event_id: event.id, note: "attempt 4" }]);
    expect(await inbox(f.consumer)).toEqual([{ event_id: event.id, type: "courses.course.created.v1" }]);
    expect(await f.deadLetters()).toEqual([]);
    expect(await replayDeadLetters(admin, f.exchange, f.consumer)).toBe(0);
  });

  it("dead-letters the event even when the dead-letter hook itself fails", async () => {
    let hookCalls = 0;
    const f = await consumerFixture(
      () => ({
        courseCreated: async () => {
          throw new Error("always fails");
        },
      }),
      async () => {
        hookCalls++;
        throw new Error("the database is down too");
      },
    );
    const event = courseCreated("hook-fails");
    await f.publish(event);
    const [letter] = await eventually(async () => {
      const letters = await f.deadLetters();
      return letters.length > 0 ? letters : undefined;
    });
    expect(letter).toMatchObject({ eventId: event.id, attempts: 3, lastError: "always fails" });
    expect(hookCalls).toBe(1);
    expect(await f.queueDepth(f.names.main)).toBe(0);
  });

  it("idle() resolves once a failed handler's message is in the retry queue: a shutdown awaits it before closing", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    // A retry delay far longer than the test, so that the moved message stays in the retry queue to be counted.
    const f = await consumerFixture(
      () => ({
        courseDeleted: async (_payload, envelope) => {
          started.push(envelope.id);
          await released;
          throw new Error("stopped: the process is shutting down");
        },
      }),
      undefined,
      { retryDelaysMs: [60_000] },
    );
    await f.publish(courseDeleted("stopping"));
    await eventually(async () => started.length === 1);
    const idle = f.idle();
    release();
    await idle;
    expect(await f.queueDepth(f.names.retry)).toBe(1);
    expect(await f.queueDepth(f.names.main)).toBe(0);
  });

  it("handles exactly once a handler that fails twice and then succeeds (no dead letter)", async () => {
    let calls = 0;
    const f = await consumerFixture(
      (consumer) => ({
        courseDeleted: async (payload, envelope, tx) => {
          calls += 1;
          await writeEffect(tx, consumer, envelope, `${payload.name} on call ${calls}`);
          if (calls <= 2) throw new Error(`transient failure ${calls}`);
        },
      }),
      undefined,
      { sentinel: true },
    );
    const event = courseDeleted("flaky");
    await f.publish(event);
    await eventually(async () => (await effects(f.consumer)).length > 0);
    expect(calls).toBe(3);
    expect(await effects(f.consumer)).toEqual([{ event_id: event.id, note: "Course flaky on call 3" }]);
    expect(f.outcomes).toEqual([true]);
    expect(await f.deadLetters()).toEqual([]);
    await f.sentinelHandled(); // no retry of the handled event is still on its way
    expect(calls).toBe(3);
    expect(await f.queueDepth(f.names.retry)).toBe(0);
    expect(await f.queueDepth(f.names.main)).toBe(0);
  });

  it("sends an undecodable message straight to the dead-letter queue", async () => {
    const handled: string[] = [];
    const f = await consumerFixture(() => ({
      courseCreated: async (_payload, envelope) => {
        handled.push(envelope.id);
      },
    }));
    const channel = await admin.createConfirmChannel();
    channel.publish(f.exchange, "courses.course.created.v1", Buffer.from("not protobuf"), { messageId: "raw-1", persistent: true });
    await channel.waitForConfirms();
    await channel.close();

    const [letter] = await eventually(async () => {
      const letters = await f.deadLetters();
      return letters.length > 0 ? letters : undefined;
    });
    expect(letter).toEqual({
      eventId: "raw-1",
      type: "courses.course.created.v1",
      attempts: 1,
      lastError: expect.stringMatching(/^undecodable message: .+/),
    });
    expect(handled).toEqual([]);
    expect(f.outcomes).toEqual([]);

    // A valid event behind it is handled normally.
    await f.publish(courseCreated("valid"));
    await eventually(async () => handled.length === 1);
    expect(await f.deadLetters()).toHaveLength(1);
  });

  it("replays only the letters the DLQ held when the replay started, though the consumer sends each straight back", async () => {
    const f = await consumerFixture(() => ({
      courseCreated: async () => undefined,
    }));
    const channel = await admin.createConfirmChannel();
    for (let i = 0; i < 20; i++) {
      channel.publish(f.exchange, "courses.course.created.v1", Buffer.from(`not protobuf ${i}`), { messageId: `raw-${i}`, persistent: true });
    }
    await channel.waitForConfirms();
    await channel.close();
    await eventually(async () => (await f.queueDepth(f.names.dead)) === 20);

    // Each replayed letter is undecodable and back in the DLQ within milliseconds, while the replay still moves the
    // later ones: a replay that kept taking what it found would move them round and round.
    expect(await replayDeadLetters(admin, f.exchange, f.consumer)).toBe(20);
    await eventually(async () => (await f.queueDepth(f.names.dead)) === 20);
    expect((await f.deadLetters()).map((letter) => letter.attempts)).toEqual(Array<number>(20).fill(1));
  });

  it("dead-letters at once an event whose payload does not match its type (retrying cannot help)", async () => {
    const handled: string[] = [];
    const f = await consumerFixture(() => ({
      courseCreated: async (_payload, envelope) => {
        handled.push(envelope.id);
      },
    }));
    const mislabelled = { ...courseCreated("x"), payload: { $case: "courseDeleted" as const, value: { courseId: "x", name: "X" } } };
    await f.publish(mislabelled);

    const [letter] = await eventually(async () => {
      const letters = await f.deadLetters();
      return letters.length > 0 ? letters : undefined;
    });
    expect(letter).toMatchObject({
      eventId: mislabelled.id,
      attempts: 1,
      lastError: "no handler for courses.course.created.v1 with payload courseDeleted",
    });
    expect(handled).toEqual([]);
  });

  /** Cuts the consumer's TCP connection, as a network failure would. */
  function cutConnection(amqp: AmqpConnection): void {
    // eslint-disable-next-line no-restricted-syntax -- the test reaches the private connection to cut its socket
    const model = (amqp as unknown as { connection?: ChannelModel }).connection;
    if (!model) throw new Error("not connected");
    // amqplib reacts to the socket's 'error' (a bare destroy() only emits 'close').
    // eslint-disable-next-line no-restricted-syntax -- amqplib's socket is not part of its typed API
    (model.connection as unknown as { stream: Socket }).stream.destroy(new Error("simulated network failure"));
  }

  it("does not ack a message whose handler failed: it is redelivered after the connection comes back", async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const firstCallStarted = new Promise<void>((resolve) => (started = resolve));
    const f = await consumerFixture((consumer) => ({
      courseCreated: async (_payload, envelope, tx) => {
        calls += 1;
        if (calls === 1) {
          started();
          await gate;
          throw new Error("failed while the connection was down");
        }
        await writeEffect(tx, consumer, envelope, `call ${calls}`);
      },
    }));
    const event = courseCreated("blocked");
    await f.publish(event);
    await firstCallStarted;

    cutConnection(f.amqp);
    await eventually(async () => !f.amqp.isConnected, 5_000, 10);
    release();

    // The broker still holds the unacked message and delivers it again once the consumer is back.
    await f.amqp.waitUntilConnected(10_000);
    await eventually(async () => (await effects(f.consumer)).length === 1);
    expect(calls).toBe(2);
    expect(await effects(f.consumer)).toEqual([{ event_id: event.id, note: "call 2" }]);
    // It was neither moved to the retry queue nor dead-lettered by the failed first handling.
    expect(await f.deadLetters()).toEqual([]);
    expect(await f.queueDepth(f.names.retry)).toBe(0);
  });

  it("redelivers a handled message whose ack was lost, and the inbox keeps the effect single", async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const firstCallStarted = new Promise<void>((resolve) => (started = resolve));
    const f = await consumerFixture((consumer) => ({
      courseCreated: async (_payload, envelope, tx) => {
        calls += 1;
        await writeEffect(tx, consumer, envelope, `call ${calls}`);
        if (calls === 1) {
          started();
          await gate;
        }
      },
    }));
    const event = courseCreated("ack-lost");
    await f.publish(event);
    await firstCallStarted;

    cutConnection(f.amqp);
    await eventually(async () => !f.amqp.isConnected, 5_000, 10);
    // The handler now succeeds and its transaction commits, but the ack cannot reach the broker.
    release();

    await f.amqp.waitUntilConnected(10_000);
    await eventually(async () => f.outcomes.length === 2);
    expect(f.outcomes).toEqual([true, false]);
    expect(calls).toBe(1);
    expect(await effects(f.consumer)).toEqual([{ event_id: event.id, note: "call 1" }]);
    expect(await f.deadLetters()).toEqual([]);
  });
});
