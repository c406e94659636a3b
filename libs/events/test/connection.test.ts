import type { Socket } from "node:net";
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { AmqpConnection, decodeEnvelope, EventPublisher } from "@study/events";
import { captureEvents, eventually, freePort, testRabbitMqUrl, uniqueSuffix } from "@study/testkit";
import { connect, type ChannelModel } from "amqplib";
import { courseCreated, logger } from "./helpers";

/** Cuts an AmqpConnection's TCP connection, as a network failure would. */
function cutConnection(amqp: AmqpConnection): void {
  // eslint-disable-next-line no-restricted-syntax -- the test reaches the private connection to cut its socket
  const model = (amqp as unknown as { connection?: ChannelModel }).connection;
  if (!model) throw new Error("not connected");
  // amqplib reacts to the socket's 'error' (a bare destroy() only emits 'close').
  // eslint-disable-next-line no-restricted-syntax -- amqplib's socket is not part of its typed API
  (model.connection as unknown as { stream: Socket }).stream.destroy(new Error("simulated network failure"));
}

/**
 * Watches the connections AmqpConnection opens through amqplib's `connect`: `closes[i]` settles when the i-th
 * one has been closed (its listener is attached before AmqpConnection receives the connection).
 */
function watchConnections() {
  // The module object itself (an `import * as` would be a copy): AmqpConnection calls `connect` through it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
  const amqplib = require("amqplib") as typeof import("amqplib");
  const realConnect = amqplib.connect;
  const closes: Promise<void>[] = [];
  const spy = jest.spyOn(amqplib, "connect").mockImplementation(async (...args: Parameters<typeof realConnect>) => {
    const model = await realConnect(...args);
    closes.push(new Promise<void>((resolve) => model.once("close", () => resolve())));
    return model;
  });
  return { spy, closes };
}

describe("AmqpConnection", () => {
  const opened: AmqpConnection[] = [];
  const connection = (url = testRabbitMqUrl()) => {
    const amqp = new AmqpConnection(url, logger, `conn-test-${uniqueSuffix()}`);
    opened.push(amqp);
    return amqp;
  };
  afterAll(async () => {
    for (const amqp of opened) await amqp.close();
  });

  it("runs set-ups on connect and again after every reconnect", async () => {
    const amqp = connection();
    const runs: number[] = [];
    await amqp.onConnected(async () => void runs.push(runs.length + 1)); // registered before connecting
    await amqp.start(5_000);
    expect(amqp.isConnected).toBe(true);
    expect(runs).toEqual([1]);
    const late: string[] = [];
    await amqp.onConnected(async () => void late.push("late")); // registered while connected: runs at once
    expect(late).toEqual(["late"]);

    cutConnection(amqp);
    await eventually(async () => !amqp.isConnected, 5_000, 10);
    await expect(amqp.confirmChannel()).rejects.toThrow("RabbitMQ connection is not available");
    await amqp.waitUntilConnected(10_000);
    expect(runs).toEqual([1, 2]);
    expect(late).toEqual(["late", "late"]);
    // The publish channel is usable again.
    await expect(amqp.confirmChannel()).resolves.toBeDefined();
  });

  it("does not block start-up on an unreachable broker, and keeps trying", async () => {
    const amqp = connection(`amqp://guest:guest@127.0.0.1:${await freePort()}`);
    const started = Date.now();
    await amqp.start(300);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(amqp.isConnected).toBe(false);
    await expect(amqp.waitUntilConnected(200)).rejects.toThrow("RabbitMQ not reachable within 200 ms");
    await expect(amqp.confirmChannel()).rejects.toThrow("RabbitMQ connection is not available");
    // Its retries would otherwise reach the next tests' spies on amqplib's connect.
    await amqp.close();
  });

  it("leaves no connection behind when closed while still connecting", async () => {
    const amqp = connection();
    const setups: string[] = [];
    await amqp.onConnected(async () => void setups.push("ran"));
    const watch = watchConnections();
    try {
      void amqp.start();
      await amqp.close(); // the TCP/AMQP handshake is still in flight
      // The handshake completes, and the closed AmqpConnection closes what it opened.
      await eventually(async () => watch.closes.length === 1);
      await watch.closes[0];
      expect(amqp.isConnected).toBe(false);
      expect(setups).toEqual([]);
      expect(watch.spy).toHaveBeenCalledTimes(1);
    } finally {
      watch.spy.mockRestore();
    }
  });

  it("does not reconnect after close()", async () => {
    const amqp = connection();
    const watch = watchConnections();
    await amqp.start(5_000);
    // A reconnect would be a timer set when the connection reports its close: fake timers let the test run
    // every timer set from here on at once instead of waiting for the back-off (intervals stay real: amqplib's
    // heartbeats).
    jest.useFakeTimers({
      doNotFake: ["Date", "hrtime", "nextTick", "performance", "queueMicrotask", "setImmediate", "clearImmediate", "setInterval", "clearInterval"],
    });
    try {
      await amqp.close();
      await watch.closes[0]; // its close event has been handled
      jest.runOnlyPendingTimers();
      expect(watch.spy).toHaveBeenCalledTimes(1);
      expect(amqp.isConnected).toBe(false);
    } finally {
      jest.useRealTimers();
      watch.spy.mockRestore();
    }
  });
});

describe("EventPublisher", () => {
  const provider = new NodeTracerProvider();
  let amqp: AmqpConnection;
  let admin: ChannelModel;

  beforeAll(async () => {
    provider.register({ contextManager: new AsyncLocalStorageContextManager(), propagator: new W3CTraceContextPropagator() });
    amqp = new AmqpConnection(testRabbitMqUrl(), logger, "publisher-test");
    await amqp.start(5_000);
    admin = await connect(testRabbitMqUrl());
  });
  afterAll(async () => {
    await amqp?.close();
    await admin?.close();
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it("publishes persistent, typed messages routed by event type, carrying the trace context", async () => {
    const exchange = `test.${uniqueSuffix()}`;
    const channel = await admin.createChannel();
    await channel.assertExchange(exchange, "topic", { durable: true });
    const { queue } = await channel.assertQueue("", { exclusive: true });
    await channel.bindQueue(queue, exchange, "courses.course.*.v1");

    const event = trace.getTracer("test").startActiveSpan("create course", (span) => {
      const created = courseCreated("pub");
      span.end();
      return created;
    });
    expect(event.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await new EventPublisher(amqp, exchange).publish([event]);

    const message = await eventually(async () => (await channel.get(queue, { noAck: true })) || undefined);
    expect(decodeEnvelope(message.content)).toEqual(event);
    expect(message.fields.routingKey).toBe("courses.course.created.v1");
    expect(message.properties).toMatchObject({
      deliveryMode: 2,
      contentType: "application/x-protobuf",
      type: "courses.course.created.v1",
      messageId: event.id,
      appId: "courses",
      timestamp: Math.floor(event.occurredAt!.getTime() / 1000),
    });
    // The message's traceparent continues the producer's trace (the publish span is its parent).
    const traceId = event.traceparent.split("-")[1];
    expect(String(message.properties.headers?.traceparent)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    await channel.close();
  });

  it("rejects while the broker is unreachable", async () => {
    const down = new AmqpConnection(`amqp://127.0.0.1:${await freePort()}`, logger);
    try {
      await expect(new EventPublisher(down, `test.${uniqueSuffix()}`).publish([courseCreated("x")])).rejects.toThrow(
        "RabbitMQ connection is not available",
      );
    } finally {
      await down.close();
    }
  });

  it("declares its exchange again when the broker lost it", async () => {
    const exchange = `test.${uniqueSuffix()}`;
    const publisher = new EventPublisher(amqp, exchange);
    await publisher.publish([courseCreated("first")]);

    // The broker loses its definitions (e.g. a fresh node without a volume); here: the exchange is deleted.
    const channel = await admin.createChannel();
    await channel.deleteExchange(exchange);
    await channel.close();

    // A publish to the missing exchange fails (the broker closes the channel)...
    await expect(publisher.publish([courseCreated("lost")])).rejects.toThrow();
    // ...and the next one declares the exchange again and succeeds, so the relay's retry gets through.
    await publisher.publish([courseCreated("again")]);
    const check = await admin.createChannel();
    await expect(check.checkExchange(exchange)).resolves.toBeDefined();
    await check.close();

    const capture = await captureEvents(testRabbitMqUrl(), exchange);
    try {
      const later = courseCreated("later");
      await publisher.publish([later]);
      await eventually(async () => capture.events.some((e) => e.id === later.id));
    } finally {
      await capture.close();
    }
  });
});
