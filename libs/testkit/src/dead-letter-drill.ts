import type { SqlClient } from "@study/db";
import {
  AmqpConnection,
  EventPublisher,
  listDeadLetters,
  queueNames,
  replayDeadLetters,
  type DeadLetter,
  type EventEnvelope,
  type RunningConsumer,
} from "@study/events";
import { createLogger, type Logger } from "@study/platform";
import { connect, type ChannelModel } from "amqplib";
import { eventually, testRabbitMqUrl, uniqueSuffix } from "./test-env";

/** Undoes what `DeadLetterDrill.breakCause` broke. */
export type Repair = () => Promise<void>;

/** What a drill needs to start a consumer the way its process does, on the drill's own exchange. */
export interface DrillConsumerSettings {
  connection: AmqpConnection;
  exchange: string;
  /** Captures the consumer's log lines: "event handled" is the drill's signal that a delivery was dealt with. */
  logger: Logger;
  /** Short retry delays, so that a message reaches the dead-letter queue within a fraction of a second. */
  retryDelaysMs: number[];
}

/** A consumer, one event it handles, and a dependency of its handler that the drill breaks and repairs. */
export interface DeadLetterDrill {
  /** The consumer's name: its queues are `<exchange>.<consumer>`, `.retry` and `.dlq`, its inbox rows carry it. */
  consumer: string;
  /** Starts the consumer under test through its own factory (adapters/events/…-consumer.ts). */
  start(settings: DrillConsumerSettings): Promise<RunningConsumer>;
  /** The consumer's database: the drill counts its inbox rows for the event. */
  db: SqlClient;
  event: EventEnvelope;
  /** Makes the handler fail on every delivery (a dependency refuses); resolves to the repair. */
  breakCause(): Promise<Repair>;
  /** What the handler (and the consumer's dead-letter hook) changed so far, as the user would see it. */
  observe(): Promise<Record<string, unknown>>;
  /**
   * Replays once before the repair (default true): the message must go round again and come back to the DLQ. False
   * where the dead-letter hook finished the work (a worker's job failed), so that a replay is acked as done.
   */
  replayBeforeRepair?: boolean;
}

/** What the consumer showed at each step of the drill (`inbox`: its inbox rows for the event). */
export interface DrillStates {
  /** Before the event was published. */
  before: Record<string, unknown>;
  /** Once the event was dead-lettered (and the dead-letter hook ran). */
  deadLettered: Record<string, unknown>;
  /** After a replay while the cause was still there (absent when `replayBeforeRepair` is false). */
  replayedBeforeRepair?: Record<string, unknown>;
  /** After the cause was repaired and the dead letter replayed. */
  replayed: Record<string, unknown>;
  /** After the same event was delivered once more (a duplicate, as a publisher retrying after a lost confirm sends). */
  duplicate: Record<string, unknown>;
}

export interface DrillOutcome {
  /** The dead letter as `listDeadLetters` (and the dead-letters CLI) shows it. */
  deadLetter: DeadLetter;
  /** The dead letter again, after a replay before the repair. */
  deadLetterAgain?: DeadLetter;
  /** What each `replayDeadLetters` returned, in order (before the repair, after it, once more at the end). */
  replays: number[];
  /** The consumer's log lines "event handled" for the event, in order: `duplicate` says whether the inbox knew it. */
  handled: { duplicate: boolean }[];
  states: DrillStates;
}

interface LogLine {
  msg?: string;
  eventId?: string;
  duplicate?: boolean;
}

/** Time allowed for each awaited signal: a busy CI machine runs two test files at once. */
const SIGNAL_TIMEOUT_MS = 20_000;

/**
 * Puts one consumer through what the dead-letter runbook (docs/operations.md) tells an operator to do, with the real broker,
 * the consumer's own factory and database, and `replayDeadLetters` (what the dead-letters CLI runs):
 * 1. the cause is broken and the event published: the consumer retries, then dead-letters it with the last error;
 * 2. (unless `replayBeforeRepair` is false) a replay before the repair: the message goes round and comes back;
 * 3. the cause is repaired and the dead letter replayed: the consumer handles it;
 * 4. the same event delivered again, and a replay of the now empty DLQ: nothing changes.
 * The steps wait for signals (the dead letter in its queue, the consumer's "event handled" log line), never for
 * time. Returns what it saw; the test asserts it. The exchange and queues are the drill's own and are deleted.
 */
export async function runDeadLetterDrill(drill: DeadLetterDrill): Promise<DrillOutcome> {
  const exchange = `test.drill.${uniqueSuffix()}`;
  const lines: LogLine[] = [];
  const logger = createLogger(drill.consumer, "debug", {
    write: (line: string) => {
      lines.push(JSON.parse(line) as LogLine);
    },
  });
  const handled = () => lines.filter((line) => line.msg === "event handled" && line.eventId === drill.event.id);
  const handledTimes = (count: number, duplicate: boolean) =>
    eventually(async () => handled().length >= count && handled()[count - 1].duplicate === duplicate, SIGNAL_TIMEOUT_MS);

  const admin = await connect(testRabbitMqUrl());
  const connection = new AmqpConnection(testRabbitMqUrl(), logger, `${drill.consumer}-drill`);
  let running: RunningConsumer | undefined;
  try {
    await connection.start(5_000);
    running = await drill.start({ connection, exchange, logger, retryDelaysMs: [20] });
    const publisher = new EventPublisher(connection, exchange);
    const deadLetters = () => listDeadLetters(admin, exchange, drill.consumer);
    const theDeadLetter = () => eventually(async () => (await deadLetters()).find((letter) => letter.eventId === drill.event.id), SIGNAL_TIMEOUT_MS);
    const state = async () => ({ ...(await drill.observe()), inbox: await inboxRows(drill.db, drill.consumer, drill.event.id) });
    const replays: number[] = [];
    const replay = async () => {
      replays.push(await replayDeadLetters(admin, exchange, drill.consumer));
    };

    const before = await state();
    const repair = await drill.breakCause();
    await publisher.publish([drill.event]);
    const deadLetter = await theDeadLetter();
    const deadLettered = await state();

    let deadLetterAgain: DeadLetter | undefined;
    let replayedBeforeRepair: Record<string, unknown> | undefined;
    if (drill.replayBeforeRepair ?? true) {
      // The replay empties the DLQ at once (it returns after moving the message), so the letter found next came back.
      await replay();
      deadLetterAgain = await theDeadLetter();
      replayedBeforeRepair = await state();
    }

    await repair();
    await replay();
    await handledTimes(1, false);
    const replayed = await state();

    await publisher.publish([drill.event]);
    await handledTimes(2, true);
    const duplicate = await state();
    await replay();
    if ((await deadLetters()).length > 0) throw new Error(`the dead-letter queue of ${drill.consumer} is not empty at the end of the drill`);

    return {
      deadLetter,
      deadLetterAgain,
      replays,
      handled: handled().map((line) => ({ duplicate: line.duplicate === true })),
      states: { before, deadLettered, ...(replayedBeforeRepair ? { replayedBeforeRepair } : {}), replayed, duplicate },
    };
  } finally {
    await running?.idle();
    await connection.close();
    await deleteQueues(admin, exchange, drill.consumer);
    await admin.close();
  }
}

async function inboxRows(db: SqlClient, consumer: string, eventId: string): Promise<number> {
  const [row] = await db.$queryRawUnsafe<{ rows: number }[]>(
    "SELECT count(*)::int AS rows FROM inbox_message WHERE consumer = $1 AND event_id = $2",
    consumer,
    eventId,
  );
  return row.rows;
}

async function deleteQueues(admin: ChannelModel, exchange: string, consumer: string): Promise<void> {
  const channel = await admin.createChannel();
  const names = queueNames(exchange, consumer);
  for (const queue of [names.main, names.retry, names.dead]) await channel.deleteQueue(queue);
  await channel.deleteExchange(exchange);
  await channel.close();
}

/** A test double that fails while `down`, as a storage or a peer service out of reach does. */
export interface DependencyWithOutage {
  down: boolean;
}

/** A `breakCause` for a test double: takes it down; the repair brings it back. */
export async function takeDown(dependency: DependencyWithOutage): Promise<Repair> {
  dependency.down = true;
  return async () => {
    dependency.down = false;
  };
}

export type WriteOperation = "INSERT" | "UPDATE" | "DELETE";

/**
 * A failing dependency for a drill: PostgreSQL refuses the operations on `table` (a trigger raising `message`),
 * for the rows `when` selects (a trigger WHEN condition over NEW/OLD; every row when absent). Resolves to the
 * repair, which drops the trigger. As a full disk or a revoked grant would, the refusal fails the statement and its
 * transaction.
 */
export async function refuseWrites(
  db: SqlClient,
  table: string,
  refusal: { operations: WriteOperation[]; when?: string; message: string },
): Promise<Repair> {
  const name = `drill_refuse_${uniqueSuffix()}`;
  const message = refusal.message.replace(/'/g, "''");
  await db.$executeRawUnsafe(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${message}'; END $$`);
  await db.$executeRawUnsafe(
    `CREATE TRIGGER ${name} BEFORE ${refusal.operations.join(" OR ")} ON ${table} FOR EACH ROW` +
      `${refusal.when ? ` WHEN (${refusal.when})` : ""} EXECUTE FUNCTION ${name}()`,
  );
  return async () => {
    await db.$executeRawUnsafe(`DROP TRIGGER ${name} ON ${table}`);
    await db.$executeRawUnsafe(`DROP FUNCTION ${name}()`);
  };
}

/** What a drill's test expects: the dead letter (matchers allowed for `lastError`) and the states it saw. */
export interface ExpectedDrill {
  event: EventEnvelope;
  type: string;
  attempts: number;
  lastError: string;
  states: DrillStates;
}

/**
 * The `DrillOutcome` the runbook promises, for `expect(drill).toEqual(…)`: the event dead-lettered with its last
 * error, the same letter back after an unrepaired replay, one message per replay and none at the end, and the event
 * handled once then seen as a duplicate. Whether the drill replayed before the repair follows from `states`.
 */
export function expectedDrillOutcome({ event, type, attempts, lastError, states }: ExpectedDrill): DrillOutcome {
  const deadLetter: DeadLetter = { eventId: event.id, type, attempts, lastError };
  const replayedBeforeRepair = states.replayedBeforeRepair !== undefined;
  return {
    deadLetter,
    deadLetterAgain: replayedBeforeRepair ? deadLetter : undefined,
    replays: replayedBeforeRepair ? [1, 1, 0] : [1, 0],
    handled: [{ duplicate: false }, { duplicate: true }],
    states,
  };
}

/**
 * The states of a handler whose failed attempts leave nothing behind (their writes roll back with the inbox row):
 * `untouched` until the repair, then `repaired` with one inbox row, which the duplicate does not change.
 */
export function untouchedUntilRepair(untouched: Record<string, unknown>, repaired: Record<string, unknown>): DrillStates {
  const before = { ...untouched, inbox: 0 };
  const after = { ...repaired, inbox: 1 };
  return { before, deadLettered: before, replayedBeforeRepair: before, replayed: after, duplicate: after };
}
