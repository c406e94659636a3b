/**
 * docs/configuration.md, made from the processes' zod configuration schemas: every setting, its default, its type or
 * allowed values, the processes that read it and its meaning (the schema's `.describe()` text). Written by
 * `npm run docs:configuration` (./cli/configuration-doc.ts); libs/testkit/test/unit/configuration-doc.test.ts fails
 * when the committed page differs, when a process passes the runtime a schema this list does not name, or when a
 * setting is read from `process.env` outside zod without a line in OUTSIDE_ZOD.
 *
 * The apps' modules are loaded by path at run time (their `src/` under jest, their `dist/` from the CLI), the way
 * the test kit starts their `dist/main.js`: libraries import no app (the architecture rule libs-not-to-apps).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CATALOGUE, type Catalogue } from "@study/platform/catalogue";
import { z } from "zod";

/** A process that reads a configuration schema, and where that schema lives. */
export interface ProcessConfiguration {
  /** The process as logs and the stack runner name it. */
  name: string;
  /** How it is run. */
  command: string;
  /** Said after the command in the process table. */
  note?: string;
  /** The module exporting the schema, from the repository root, in `src/` and without extension. */
  module: string;
  schemaExport: string;
  /** The source that hands the schema to the runtime (`configSchema:` or `loadConfig(`). */
  entry: string;
}

const camelCase = (name: string) => name.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());

/**
 * A catalogue service's schema: `<name>ConfigSchema` of its `src/config.ts`, or the runtime's plain service schema
 * when it has none (courses); its extra processes (workers) read `workerConfigSchema` of the same module.
 */
function catalogueProcesses(root: string): ProcessConfiguration[] {
  const catalogue: Catalogue = CATALOGUE;
  return catalogue.flatMap((service): ProcessConfiguration[] => {
    const hasConfig = existsSync(join(root, service.directory, "src", "config.ts"));
    return [
      {
        name: service.name,
        command: `node ${service.directory}/dist/main.js`,
        module: hasConfig ? `${service.directory}/src/config` : "libs/runtime/src/start-process",
        schemaExport: hasConfig ? `${camelCase(service.name)}ConfigSchema` : "serviceConfigSchema",
        entry: `${service.directory}/src/service.ts`,
      },
      ...(service.extraProcesses ?? []).map((extra) => ({
        name: extra.name,
        command: `node ${service.directory}/${extra.script}`,
        module: `${service.directory}/src/config`,
        schemaExport: "workerConfigSchema",
        entry: `${service.directory}/src/${extra.script.replace(/^dist\/(.*)\.js$/, "$1")}.ts`,
      })),
    ];
  });
}

/** The repository, from libs/testkit/src or libs/testkit/dist. */
const ROOT = join(__dirname, "..", "..", "..");

/** Every process that reads a zod schema, in the document's order. */
export const PROCESSES: readonly ProcessConfiguration[] = [
  {
    name: "gateway",
    command: "node gateway/dist/main.js",
    module: "gateway/src/config",
    schemaExport: "gatewayConfigSchema",
    entry: "gateway/src/gateway.ts",
  },
  ...catalogueProcesses(ROOT),
  // A service's reindex command (`src/reindex.ts`) reads `reindexConfigSchema` of its config module.
  ...CATALOGUE.filter((service) => existsSync(join(ROOT, service.directory, "src", "reindex.ts"))).map((service) => ({
    name: `${service.name}-reindex`,
    command: `node ${service.directory}/dist/reindex.js`,
    module: `${service.directory}/src/config`,
    schemaExport: "reindexConfigSchema",
    entry: `${service.directory}/src/reindex.ts`,
  })),
  {
    name: "migrate",
    command: "node <app>/dist/migrate.js",
    note: "for each service and the gateway, before it starts",
    module: "libs/runtime/src/migrate",
    schemaExport: "migrationConfigSchema",
    entry: "libs/runtime/src/migrate.ts",
  },
  {
    name: "dead-letters",
    command: "node libs/events/dist/cli/dead-letters.js",
    module: "libs/events/src/cli/dead-letters",
    schemaExport: "deadLettersConfigSchema",
    entry: "libs/events/src/cli/dead-letters.ts",
  },
];

/** The services and their workers: the settings all of them read alike make the document's first table. */
const SERVICES_AND_WORKERS = PROCESSES.filter((process) => !/^gateway$|-reindex$|^migrate$|^dead-letters$/.test(process.name)).map(
  (process) => process.name,
);

/** A setting read from `process.env` outside the zod schemas: the test kit's, OpenTelemetry's, Node's. */
export interface OutsideZodSetting {
  name: string;
  readBy: string;
  default: string;
  meaning: string;
}

/** Hand-maintained; the unit test checks that each is read in a source and that every such read is listed. */
export const OUTSIDE_ZOD: readonly OutsideZodSetting[] = [
  {
    name: "OTEL_SDK_DISABLED",
    readBy: "every process (libs/platform telemetry)",
    default: "unset",
    meaning: "`true` starts no tracing at all (no provider, no instrumentation), to measure what tracing costs.",
  },
  {
    name: "OTEL_NODE_DISABLED_INSTRUMENTATIONS",
    readBy: "every process (libs/platform telemetry)",
    default: "empty: every instrumentation",
    meaning: "Comma-separated instrumentations left out: `http` (outgoing requests), `pg`, `amqplib`, `prisma`.",
  },
  {
    name: "NODE_OPTIONS",
    readBy: "Node itself; the test kit's stacks add theirs to it",
    default: "as the image sets it",
    meaning: "V8 options; the image and the local stack set `--enable-source-maps --max-semi-space-size=32` (docs/PERFORMANCE.md).",
  },
  {
    name: "STUDY_DATA_DIR",
    readBy: "`npm start`",
    default: "`.data`",
    meaning: "The folder of the local stack's data: databases, broker, session secret, internal keys, uploads, mail.",
  },
  {
    name: "POSTGRES_PORT",
    readBy: "`npm start`",
    default: "`5433`",
    meaning: "Port of the embedded PostgreSQL the local stack starts.",
  },
  {
    name: "RABBITMQ_PORT",
    readBy: "`npm start`",
    default: "`5673`",
    meaning: "Port of the private RabbitMQ node the local stack starts.",
  },
  {
    name: "POSTGRES_ADMIN_URL",
    readBy: "`npm start`, the tests' global set-up",
    default: "unset: a PostgreSQL of their own",
    meaning: "A superuser URL of a PostgreSQL you already run; the databases are created on it.",
  },
  {
    name: "DOCKER_HOST",
    readBy: "the tests' global set-up (testcontainers)",
    default: "unset: `/var/run/docker.sock` when present",
    meaning: "A Docker engine for PostgreSQL and RabbitMQ containers; without one the tests start local servers.",
  },
  {
    name: "E2E_DUMP_LOGS",
    readBy: "the end-to-end tests",
    default: "unset",
    meaning: "Set: the shared stack's logs are printed when it stops.",
  },
  {
    name: "STUDY_WEB_APP_DIST",
    readBy: "the test kit (`npm start`, test stacks)",
    default: "`clients/web/dist`",
    meaning: "Another build of the web app for the gateway to serve (`npx vite build --outDir …`), e.g. one per work tree.",
  },
  {
    name: "STRIPE_STANDIN_PORT",
    readBy: "the Stripe stand-in (`npm start`, `node libs/testkit/dist/cli/stripe-server.js`)",
    default: "`12111`",
    meaning: "Its port on 127.0.0.1.",
  },
  {
    name: "STRIPE_STANDIN_PUBLIC_URL",
    readBy: "the Stripe stand-in",
    default: "its own URL",
    meaning: "Base of the checkout and portal URLs a browser opens.",
  },
  {
    name: "STRIPE_STANDIN_PAYOUT_SETTLE_MS",
    readBy: "the Stripe stand-in",
    default: "`3000`",
    meaning: "Payouts are paid this long after they are created.",
  },
  {
    name: "STRIPE_STANDIN_STATE_FILE",
    readBy: "the Stripe stand-in",
    default: "unset: in memory (`npm start`: `<data dir>/stripe.json`)",
    meaning: "A file keeping its customers, subscriptions and payouts across restarts.",
  },
  {
    name: "STRIPE_WEBHOOK_URL",
    readBy: "the Stripe stand-in",
    default: "unset: no webhooks",
    meaning: "Where it sends signed webhooks (the gateway's `/api/billing/webhook`).",
  },
];

/**
 * Names read from the environment that a user does not set: the test kit sets them for its own children (jest's
 * workers, rabbitmq-server), or they are read only to be handed on.
 */
export const INTERNAL_ENVIRONMENT = new Set([
  "STUDY_TEST_POSTGRES_URL",
  "STUDY_TEST_RABBITMQ_URL",
  "STUDY_TEST_BASE_DIR",
  "RABBITMQ_LOG_BASE",
  "RABBITMQ_ENABLED_PLUGINS_FILE",
]);

/** One setting of one schema, as the document shows it. */
export interface SettingDoc {
  name: string;
  /** `**required**`, `unset`, or the default value. */
  default: string;
  type: string;
  meaning: string;
}

interface Inspection {
  description?: string;
  /** Refinements on a wrapper (`.default(…).refine(…)`): their messages say what the value must be. */
  wrapperChecks: string[];
  optional: boolean;
  defaultValue?: unknown;
  leaves: z.core.$ZodType[];
}

/** "must be host:port" → "host:port": a check's message, as a type. */
const messageOf = (check: z.core.$ZodCheck | z.core.$ZodType): string | undefined => {
  const error = check._zod.def.error;
  // A message given as text is kept by zod as a function that ignores the issue it is handed (typed for no issue in
  // particular: `never`, hence Reflect.apply).
  const issue: z.core.$ZodRawIssue = { code: "custom", input: undefined, path: [] };
  const message: unknown = typeof error === "function" ? Reflect.apply(error, undefined, [issue]) : undefined;
  if (typeof message !== "string" || message === "is required") return undefined;
  return message.replace(/^must be /, "");
};

function inspect(schema: z.core.$ZodType, found: Inspection): void {
  const description = z.globalRegistry.get(schema)?.description;
  if (found.description === undefined && description) found.description = description;
  const def = schema._zod.def;
  if (def.type === "pipe" || def.type === "default" || def.type === "optional") {
    for (const check of def.checks ?? []) {
      const message = messageOf(check);
      if (message) found.wrapperChecks.push(message);
    }
  }
  switch (def.type) {
    case "pipe": {
      const pipe = def as z.core.$ZodPipeDef;
      // z.preprocess: a transform feeding the real schema; .transform(): the schema feeding a transform.
      if (pipe.in._zod.def.type !== "transform") inspect(pipe.in, found);
      if (pipe.out._zod.def.type !== "transform") inspect(pipe.out, found);
      return;
    }
    case "default": {
      const inner = def as z.core.$ZodDefaultDef;
      found.defaultValue ??= inner.defaultValue;
      inspect(inner.innerType, found);
      return;
    }
    case "optional":
      found.optional = true;
      inspect((def as z.core.$ZodOptionalDef).innerType, found);
      return;
    default:
      found.leaves.push(schema);
  }
}

const code = (value: unknown) => `\`${String(value)}\``;

function listOf(values: string[], conjunction = "or"): string {
  return values.length < 2 ? values.join("") : `${values.slice(0, -1).join(", ")} ${conjunction} ${values[values.length - 1]}`;
}

function numberType(schema: z.core.$ZodType): string {
  let whole = false;
  let min: number | undefined;
  let max: number | undefined;
  for (const check of schema._zod.def.checks ?? []) {
    const def = check._zod.def as z.core.$ZodCheckDef & { format?: string; value?: number; inclusive?: boolean };
    if (def.check === "number_format" && def.format === "safeint") whole = true;
    if (def.check === "greater_than" && typeof def.value === "number") min = def.inclusive ? def.value : def.value + (whole ? 1 : 0);
    if (def.check === "less_than" && typeof def.value === "number") max = def.inclusive ? def.value : def.value - (whole ? 1 : 0);
  }
  const kind = whole ? "whole number" : "number";
  if (min !== undefined && max !== undefined) return `${kind}, ${min} to ${max}`;
  if (min !== undefined) return `${kind} ≥ ${min}`;
  if (max !== undefined) return `${kind} ≤ ${max}`;
  return kind;
}

function stringType(schema: z.core.$ZodType): string {
  const def = schema._zod.def as z.core.$ZodStringDef & { format?: string; protocol?: RegExp };
  const messages: string[] = [];
  const formatMessage = messageOf(schema);
  if (def.format === "url") messages.push(formatMessage ?? (def.protocol?.source === "^https?$" ? "http(s) URL" : "URL"));
  let minLength = 0;
  for (const check of def.checks ?? []) {
    const checkDef = check._zod.def as z.core.$ZodCheckDef & { minimum?: number; pattern?: RegExp };
    const message = messageOf(check);
    if (message) messages.push(message);
    else if (checkDef.check === "min_length" && typeof checkDef.minimum === "number") minLength = checkDef.minimum;
    else if (checkDef.check === "string_format" && checkDef.pattern) messages.push(`text matching ${code(checkDef.pattern.source)}`);
  }
  if (messages.length > 0) return messages.join("; ");
  return minLength > 1 ? `text, at least ${minLength} characters` : "text";
}

function leafType(schema: z.core.$ZodType): string {
  const def = schema._zod.def;
  switch (def.type) {
    case "enum":
      // In the entries' order, which puts integer-like values first (`0`, `1`, `true`, `false`).
      return listOf(Object.values((def as z.core.$ZodEnumDef).entries).map(code));
    case "number":
      return numberType(schema);
    case "string":
      return stringType(schema);
    case "boolean":
      return "`true` or `false`";
    default:
      return def.type;
  }
}

function renderDefault(value: unknown): string {
  if (value === "") return "empty";
  return code(value);
}

/** What the document says of one setting. */
export function describeSetting(name: string, schema: z.core.$ZodType): SettingDoc {
  const found: Inspection = { optional: false, wrapperChecks: [], leaves: [] };
  inspect(schema, found);
  // The last leaf is the value's final shape (after .pipe()); earlier ones only pre-check it.
  const leaf = found.leaves.at(-1);
  return {
    name,
    default: found.defaultValue !== undefined ? renderDefault(found.defaultValue) : found.optional ? "unset" : "**required**",
    type: found.wrapperChecks.length > 0 ? found.wrapperChecks.join("; ") : leaf ? leafType(leaf) : "text",
    meaning: found.description ?? "",
  };
}

/** The settings of an object schema (a refined one included), in its order. */
export function describeSettings(schema: z.core.$ZodType): SettingDoc[] {
  const def = schema._zod.def;
  // .superRefine() on an object keeps the object and adds checks: the shape is on the same schema.
  if (def.type !== "object") throw new Error(`a configuration schema must be a z.object, not ${def.type}`);
  return Object.entries((def as z.core.$ZodObjectDef).shape).map(([name, setting]) => describeSetting(name, setting));
}

/** Loads each process's schema: `src` under jest (TypeScript through its transform), `dist` from the built CLI. */
export function loadProcessSchemas(root: string, tree: "src" | "dist"): Map<string, z.core.$ZodType> {
  const schemas = new Map<string, z.core.$ZodType>();
  for (const process of PROCESSES) {
    const path = join(root, process.module.replace(/\/src\//, `/${tree}/`));
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- an app's module by path: libraries import no app
    const loaded = require(path) as Record<string, unknown>;
    const schema = loaded[process.schemaExport];
    if (!(schema instanceof z.ZodType)) throw new Error(`${process.module} exports no zod schema ${process.schemaExport} (${process.name})`);
    schemas.set(process.name, schema);
  }
  return schemas;
}

interface Row extends SettingDoc {
  readers: string[];
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
const settingCells = (row: SettingDoc) => `| \`${row.name}\` | ${cell(row.default)} | ${cell(row.type)} | ${cell(row.meaning)} |`;

/** docs/configuration.md from the processes' schemas. */
export function renderConfigurationDoc(schemas: Map<string, z.core.$ZodType>): string {
  // One row per setting and description of it: a setting two processes read alike is one row read by both.
  const rows = new Map<string, Row>();
  // Each process's rows in its schema's order.
  const settingsOf = new Map<string, Row[]>();
  for (const process of PROCESSES) {
    const schema = schemas.get(process.name);
    if (!schema) throw new Error(`no schema loaded for ${process.name}`);
    const own: Row[] = [];
    for (const setting of describeSettings(schema)) {
      const key = JSON.stringify([setting.name, setting.default, setting.type, setting.meaning]);
      const row = rows.get(key) ?? { ...setting, readers: [] };
      row.readers.push(process.name);
      rows.set(key, row);
      own.push(row);
    }
    settingsOf.set(process.name, own);
  }
  // Read alike by every service and worker: one table, not a row in each process's.
  const isCommon = (row: Row) => SERVICES_AND_WORKERS.every((name) => row.readers.includes(name));
  const common = [...rows.values()].filter(isCommon);
  const lines = [
    "# Configuration",
    "",
    "<!-- Generated by `npm run docs:configuration` from the zod schemas (libs/testkit/src/configuration-doc.ts); " +
      "libs/testkit/test/unit/configuration-doc.test.ts fails when this page is stale. Edit the schemas' `.describe()` texts, not this page. -->",
    "",
    "Every process reads its settings from the environment once, at start, through its zod schema; a missing or bad",
    "setting stops it with one line (`Invalid configuration: DATABASE_URL: is required but not set`). An empty value",
    "(`FOO=`) counts as unset where the schema reads it through `emptyAsUnset` (most of the services' own settings);",
    "elsewhere it is a value, which the setting's type may refuse. The first part is made from those schemas: the settings every",
    "service and worker reads, then each process's own. The second part lists the few variables read",
    "outside them (the test kit, OpenTelemetry, Node): kept by hand, and checked by the same test, which fails when",
    "a source reads a variable that neither part names. `npm start` and the test stacks set some settings themselves",
    "(ports, addresses, keys, folders under `.data/`): see [running.md](running.md).",
    "",
    "| Process | Run as |",
    "|---|---|",
    ...PROCESSES.map((process) => `| [\`${process.name}\`](#${process.name}) | \`${process.command}\`${process.note ? `, ${process.note}` : ""} |`),
    "",
    "## Every service and worker",
    "",
    "| Setting | Default | Type, allowed values | Meaning | Also read by |",
    "|---|---|---|---|---|",
    ...common.map((row) => {
      const others = row.readers.filter((name) => !SERVICES_AND_WORKERS.includes(name));
      return `${settingCells(row)} ${others.map((name) => `\`${name}\``).join(", ")} |`;
    }),
    "",
  ];
  // A row is a table line once, in the first process that reads it; later processes name it and link there.
  const shownIn = new Map<Row, string>();
  const names = (list: Row[]) =>
    listOf(
      list.map((row) => `\`${row.name}\``),
      "and",
    );
  for (const process of PROCESSES) {
    const own = (settingsOf.get(process.name) ?? []).filter((row) => !isCommon(row));
    const fresh = own.filter((row) => !shownIn.has(row));
    const earlier = new Map<string, Row[]>();
    for (const row of own) {
      const first = shownIn.get(row);
      if (first !== undefined) earlier.set(first, [...(earlier.get(first) ?? []), row]);
    }
    const shared = common.filter((row) => row.readers.includes(process.name));
    lines.push(`## ${process.name}`, "");
    if (!SERVICES_AND_WORKERS.includes(process.name)) lines.push(`Of the first table: ${names(shared)}.`, "");
    for (const [first, rowsThere] of earlier) lines.push(`As [\`${first}\`](#${first}) reads them: ${names(rowsThere)}.`, "");
    if (fresh.length > 0) {
      lines.push("| Setting | Default | Type, allowed values | Meaning |", "|---|---|---|---|", ...fresh.map(settingCells), "");
    }
    for (const row of fresh) shownIn.set(row, process.name);
  }
  lines.push(
    "## Read outside the schemas",
    "",
    "| Variable | Read by | Default | Meaning |",
    "|---|---|---|---|",
    ...OUTSIDE_ZOD.map((setting) => `| \`${setting.name}\` | ${cell(setting.readBy)} | ${cell(setting.default)} | ${cell(setting.meaning)} |`),
    "",
  );
  return lines.join("\n");
}
