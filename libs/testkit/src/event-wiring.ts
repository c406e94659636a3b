/**
 * Who publishes and who consumes each domain event, read from the sources: the routing keys of
 * `@study/events/envelope` (EVENT_TYPES), the apps' code that builds each event (`$case: "<event>"`) and the
 * handlers of every `startConsumer({ consumer, handlers: { … } })` call (or `startJobConsumer`, a job worker's).
 * docs/events.md is rendered from it (`npm run docs:events`), and the dead-letter coverage test finds every
 * consumer with it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

export interface FoundConsumer {
  /** The app folder: `services/<name>` or `gateway`. */
  app: string;
  /** The module that calls startConsumer (or startJobConsumer), relative to the repository. */
  module: string;
  /** The consumer name (its queues are `<exchange>.<name>`). */
  name: string;
  /** The events it handles, by their EVENT_TYPES names. */
  handles: string[];
}

export interface EventWiring {
  name: string;
  routingKey: string;
  /** The apps whose code builds the event. */
  producers: string[];
  consumers: FoundConsumer[];
}

/** An app's .ts sources, without generated code. */
function sourcesOf(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !path.includes(join("src", "generated")));
}

/** The text inside the `{ … }` block whose opening brace is at `open`, braces counted. */
function blockAt(text: string, open: number): string {
  let depth = 0;
  for (let index = open; index < text.length; index += 1) {
    if (text[index] === "{") depth += 1;
    else if (text[index] === "}" && --depth === 0) return text.slice(open + 1, index);
  }
  throw new Error("unbalanced braces");
}

/** The keys of an object literal's own level (nested blocks, calls and arrays skipped). */
function topLevelKeys(block: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (const line of block.split("\n")) {
    const key = depth === 0 ? /^\s*([A-Za-z]\w*)\s*:/.exec(line) : null;
    if (key) keys.push(key[1]);
    for (const char of line) {
      if ("{([".includes(char)) depth += 1;
      else if ("})]".includes(char)) depth -= 1;
    }
  }
  return keys;
}

const appsOf = (root: string) => [...readdirSync(join(root, "services")).map((name) => join("services", name)), "gateway"];

/**
 * Every startConsumer (and startJobConsumer) call of the apps, with the consumer name it passes (a string, or a
 * constant of the same module: `consumer: CONSUMER_NAME` with `export const CONSUMER_NAME = "search"`) and the
 * events its handlers take.
 */
export function consumersInSources(root: string): FoundConsumer[] {
  const found: FoundConsumer[] = [];
  for (const app of appsOf(root)) {
    for (const path of sourcesOf(join(root, app, "src"))) {
      const text = readFileSync(path, "utf8");
      for (const call of text.matchAll(/start(?:Job)?Consumer(?:<[^>(]*>)?\(\{/g)) {
        const options = blockAt(text, call.index + call[0].length - 1);
        const option = /consumer:\s*(?:"([^"]+)"|([A-Z_][A-Z0-9_]*))/.exec(options);
        const constant = option?.[2] ? new RegExp(`export const ${option[2]} = "([^"]+)"`).exec(text) : null;
        const name = option?.[1] ?? constant?.[1];
        const handlers = options.indexOf("handlers: {");
        if (!name || handlers < 0) throw new Error(`${relative(root, path)}: a consumer whose name or handlers cannot be read`);
        found.push({ app, module: relative(root, path), name, handles: topLevelKeys(blockAt(options, handlers + "handlers: ".length)) });
      }
    }
  }
  return found;
}

/** Every event of EVENT_TYPES, in its order, with the apps that publish it and the consumers that handle it. */
export function eventWiring(root: string): EventWiring[] {
  const envelope = readFileSync(join(root, "libs/events/src/envelope.ts"), "utf8");
  const table = blockAt(envelope, envelope.indexOf("{", envelope.indexOf("export const EVENT_TYPES")));
  const events = [...table.matchAll(/^\s*(\w+):\s*"([^"]+)"/gm)].map(([, name, routingKey]): EventWiring => ({
    name,
    routingKey,
    producers: [],
    consumers: [],
  }));
  const byName = new Map(events.map((event) => [event.name, event]));
  for (const app of appsOf(root)) {
    const built = new Set(
      sourcesOf(join(root, app, "src")).flatMap((path) => [...readFileSync(path, "utf8").matchAll(/\$case: "(\w+)"/g)].map((match) => match[1])),
    );
    for (const name of built) byName.get(name)?.producers.push(app);
  }
  for (const consumer of consumersInSources(root)) {
    for (const name of consumer.handles) {
      const event = byName.get(name);
      if (!event) throw new Error(`${consumer.module}: consumer ${consumer.name} handles ${name}, which is no event`);
      event.consumers.push(consumer);
    }
  }
  return events;
}

/** docs/events.md. */
export function renderEventsDoc(root: string): string {
  const list = (values: string[]) => [...values].sort().join(", ") || "—";
  return [
    "# Domain events",
    "",
    "<!-- Generated by `npm run docs:events` (libs/testkit/src/event-wiring.ts) from the sources; a unit test fails when it is stale. -->",
    "",
    "Every event travels on the one topic exchange (`EVENT_EXCHANGE`, `study.events`) as a protobuf `EventEnvelope`",
    "([proto/study/events/v1/](../proto/study/events/v1/)), written to the producer's outbox in the transaction of the",
    "change and delivered at least once; each consumer has its own queue (`study.events.<consumer>`), an inbox that drops",
    "duplicates, retries and a dead-letter queue ([architecture.md](architecture.md), [operations.md](operations.md)).",
    "Producers are `gateway` (identity) and the services; a consumer is named with the process that runs it.",
    "",
    "| Routing key | Event | Published by | Consumed by |",
    "|---|---|---|---|",
    ...eventWiring(root).map(
      (event) =>
        `| \`${event.routingKey}\` | \`${event.name}\` | ${list(event.producers)} | ${list(event.consumers.map((consumer) => `\`${consumer.name}\` (${consumer.app})`))} |`,
    ),
    "",
  ].join("\n");
}
