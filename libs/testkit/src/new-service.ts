/**
 * `npm run new:service <name>` (./cli/new-service.ts): a new service copied from the exemplar, services/notifications
 * — the service that shows every room: use cases with an in-memory repository in their tests, Prisma repositories,
 * an event consumer, a scheduler, a gRPC API. The copy is the exemplar under new names, with its own API: the
 * exemplar's proto, renamed, as proto/study/<name>/v1/<name>.proto (docs/development.md, "Adding a service").
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** The exemplar: its service name (the plural of its entity) and its entity. */
const EXEMPLAR = { name: "notifications", entity: "notification" } as const;
const EXEMPLAR_DIRECTORY = `services/${EXEMPLAR.name}`;
const EXEMPLAR_PROTO = `proto/study/${EXEMPLAR.name}/v1/${EXEMPLAR.name}.proto`;

/** The repository this module belongs to (from libs/testkit/src or libs/testkit/dist). */
const REPOSITORY = resolve(__dirname, "..", "..", "..");

/** Files the scaffold edits, relative to the target root. */
export const CATALOGUE_FILE = "libs/platform/src/catalogue.ts";
export const ROOT_TSCONFIG = "tsconfig.json";
export const CONTRACTS_INDEX = "libs/contracts/src/index.ts";

/** One lower-case word, as every service name is: the same word serves paths, identifiers, SQL and proto packages. */
const WORD = /^[a-z][a-z0-9]*$/;

/** Folders of the exemplar that are build output or generated: never copied. */
const NOT_COPIED_FOLDERS = new Set(["dist", "node_modules", "generated"]);
/** Sources of the exemplar (build output that strays into src/ ends in .js, .js.map or .d.ts.map and is left out). */
const COPIED_FILE = /\.(ts|json|prisma|sql)$/;

export interface NewServiceOptions {
  /** The service's name: one lower-case word, the plural of its entity (e.g. `reminders`). */
  name: string;
  /** The entity the copy stores, singular (default: the name without its final "s"). */
  entity?: string;
  /** The repository to write into (default: this one); a test gives a temporary copy. */
  root?: string;
  /** The exemplar's repository (default: this one). */
  exemplarRoot?: string;
  /** The first migration's timestamp (default: now). */
  now?: Date;
}

export interface NewService {
  name: string;
  entity: string;
  /** The service's folder, relative to the root. */
  directory: string;
  grpcPort: number;
  grpcAddressVariable: string;
  /** Every file written or edited, relative to the root. */
  files: string[];
}

/** The four spellings of a word the exemplar's sources use. */
function spellings(word: string) {
  return { lower: word, pascal: word[0].toUpperCase() + word.slice(1), upper: word.toUpperCase() };
}

/**
 * Rewrites the exemplar's names in a text: `notifications` (the service, and the plural of its entity) becomes the
 * name, `notification` the entity, in every spelling (`NotificationsService` → `RemindersService`,
 * `NOTIFICATION_TYPE_SYSTEM` → `REMINDER_TYPE_SYSTEM`); its settings take the service's name as their prefix
 * (`NOTIFICATION_CLEANUP_CRON` → `REMINDERS_CLEANUP_CRON`), its gRPC port becomes the new one.
 */
export function renamer(options: { name: string; entity: string; settings: readonly string[]; exemplarPort: number; grpcPort: number }) {
  const name = spellings(options.name);
  const entity = spellings(options.entity);
  const exemplar = spellings(EXEMPLAR.entity);
  // Case-sensitive: the S of `NotificationSelect` (Prisma's) starts a word, it is no plural.
  const words = new Map<string, string>();
  for (const spelling of ["lower", "pascal", "upper"] as const) {
    words.set(`${exemplar[spelling]}${spelling === "upper" ? "S" : "s"}`, name[spelling]);
    words.set(exemplar[spelling], entity[spelling]);
  }
  const settings = new Set(options.settings);
  const alternatives = [...[...settings].map((setting) => `\\b${setting}\\b`), ...words.keys(), `\\b${options.exemplarPort}\\b`];
  const pattern = new RegExp(alternatives.join("|"), "g");
  return (text: string) =>
    text.replace(pattern, (match) => {
      if (settings.has(match)) return `${name.upper}${match.slice(EXEMPLAR.entity.length)}`;
      return words.get(match) ?? String(options.grpcPort);
    });
}

function sourceFilesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return NOT_COPIED_FOLDERS.has(entry.name) ? [] : sourceFilesUnder(path);
    return COPIED_FILE.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The gRPC ports the catalogue gives out (services, the gateway) and the HTTP ports beside them. */
function portsIn(catalogue: string): number[] {
  return [...catalogue.matchAll(/\b(?:grpcPort|defaultPort|httpPort): (\d+)/g)].map((match) => Number(match[1]));
}

function exemplarPortIn(catalogue: string): number {
  const entry = new RegExp(`name: "${EXEMPLAR.name}",[^}]*?grpcPort: (\\d+)`).exec(catalogue);
  if (!entry) throw new Error(`${CATALOGUE_FILE} has no entry for the exemplar ${EXEMPLAR.name}`);
  return Number(entry[1]);
}

/** Inserts `line` after the last line matching `anchor` (or before the first, `where: "before"`). */
function insertAt(file: string, text: string, anchor: RegExp, line: string, where: "after" | "before" = "after"): string {
  const lines = text.split("\n");
  const index =
    where === "after" ? lines.findLastIndex((candidate) => anchor.test(candidate)) : lines.findIndex((candidate) => anchor.test(candidate));
  if (index < 0) throw new Error(`${file}: no line matches ${anchor}, so the scaffold does not know where to add ${line.trim()}`);
  lines.splice(where === "after" ? index + 1 : index, 0, line);
  return lines.join("\n");
}

/** The catalogue entry, one line as prettier writes it when it fits (printWidth 150), else one property a line. */
function catalogueEntry(fields: { name: string; directory: string; grpcAddressVariable: string; grpcPort: number }): string {
  const properties = [
    `name: "${fields.name}"`,
    `directory: "${fields.directory}"`,
    `grpcAddressVariable: "${fields.grpcAddressVariable}"`,
    `grpcPort: ${fields.grpcPort}`,
  ];
  const line = `  { ${properties.join(", ")} },`;
  return line.length <= 150 ? line : ["  {", ...properties.map((property) => `    ${property},`), "  },"].join("\n");
}

const timestamp = (date: Date) => date.toISOString().replace(/\D/g, "").slice(0, 14);

function readme(service: NewService): string {
  const { name, entity } = service;
  return `# The ${name} service

Scaffolded by \`npm run new:service ${name}\` from [the notifications service](../notifications/README.md), the exemplar:
it still does what notifications does, under new names — it stores ${entity}s, serves them over gRPC
(\`study.${name}.v1\`, [${name}.proto](../../proto/study/${name}/v1/${name}.proto), port ${service.grpcPort}), creates them from
domain events (consumer \`${name}\`) and deletes old read ones on a schedule. Replace that with what this service owns,
following [docs/development.md](../../docs/development.md) ("Adding a service"), then describe it here as the other
services' READMEs do: what it owns, its gRPC API, its events, its settings, its rules and its tests.
`;
}

/** Scaffolds a service into `root`; throws, writing nothing, when the name is taken or not one word. */
export function scaffoldService(options: NewServiceOptions): NewService {
  const root = options.root ?? REPOSITORY;
  const exemplarRoot = options.exemplarRoot ?? REPOSITORY;
  const name = options.name;
  const entity = options.entity ?? name.replace(/s$/, "");
  if (!WORD.test(name)) throw new Error(`the name must be one lower-case word (letters, then letters or digits): "${name}"`);

  const read = (file: string) => readFileSync(join(root, file), "utf8");
  const catalogue = read(CATALOGUE_FILE);
  const contracts = read(CONTRACTS_INDEX);
  const tsconfig = read(ROOT_TSCONFIG);
  const directory = `services/${name}`;
  const proto = `proto/study/${name}/v1/${name}.proto`;
  const taken = [
    new RegExp(`name: "${name}"`).test(catalogue) && `${CATALOGUE_FILE} has a service "${name}"`,
    new RegExp(`export \\* as ${name} from`).test(contracts) && `${CONTRACTS_INDEX} already exports "${name}"`,
    ["gateway", "common", "events", "health"].includes(name) && `"${name}" names a part of the system already`,
    existsSync(join(root, directory)) && `${directory} exists`,
    existsSync(join(root, proto)) && `${proto} exists`,
  ].filter((reason) => typeof reason === "string");
  if (taken.length > 0) throw new Error(`cannot add the service "${name}": ${taken.join("; ")}`);
  if (!WORD.test(entity)) throw new Error(`the entity must be one lower-case word: "${entity}"`);
  if (entity === name) throw new Error(`the entity must differ from the name "${name}" (the copy uses both): give --entity <singular>`);

  const usedPorts = new Set(portsIn(catalogue));
  let grpcPort = Math.max(...[...catalogue.matchAll(/\bgrpcPort: (\d+)/g)].map((match) => Number(match[1]))) + 1;
  while (usedPorts.has(grpcPort)) grpcPort += 1;
  const grpcAddressVariable = `${name.toUpperCase()}_GRPC_ADDRESS`;
  const exemplar = join(exemplarRoot, EXEMPLAR_DIRECTORY);
  const settings = [...readFileSync(join(exemplar, "src", "config.ts"), "utf8").matchAll(/^\s+([A-Z][A-Z0-9_]*):/gm)]
    .map((match) => match[1])
    .filter((setting) => setting.startsWith(`${EXEMPLAR.entity.toUpperCase()}_`));
  const rename = renamer({
    name,
    entity,
    settings,
    exemplarPort: exemplarPortIn(readFileSync(join(exemplarRoot, CATALOGUE_FILE), "utf8")),
    grpcPort,
  });

  const service: NewService = { name, entity, directory, grpcPort, grpcAddressVariable, files: [] };
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
    service.files.push(file);
  };

  const migrationsFolder = join("prisma", "migrations");
  for (const source of sourceFilesUnder(exemplar)) {
    const inExemplar = relative(exemplar, source);
    // The first migration is dated when the service is made, not when the exemplar was.
    const path = inExemplar.startsWith(migrationsFolder)
      ? inExemplar.replace(/(migrations\/)\d+_/, `$1${timestamp(options.now ?? new Date())}_`)
      : inExemplar;
    write(join(directory, rename(path)), rename(readFileSync(source, "utf8")));
  }
  write(join(directory, "README.md"), readme(service));
  write(proto, rename(readFileSync(join(exemplarRoot, EXEMPLAR_PROTO), "utf8")));
  const apiExport = `export * as ${name} from "./gen/study/${name}/v1/${name}";`;
  write(CONTRACTS_INDEX, insertAt(CONTRACTS_INDEX, contracts, /^export \* as \w+ from "\.\/gen\/study\//, apiExport));
  const entry = catalogueEntry({ name, directory, grpcAddressVariable, grpcPort });
  write(CATALOGUE_FILE, insertAt(CATALOGUE_FILE, catalogue, /^\] as const satisfies Catalogue;/, entry, "before"));
  write(ROOT_TSCONFIG, insertAt(ROOT_TSCONFIG, tsconfig, /"path": "services\//, `    { "path": "${directory}" },`));
  return service;
}

/** What the scaffold leaves to the developer, in order (docs/development.md, "Adding a service"). */
export function nextSteps(service: NewService, done: { generated: boolean; deploymentGenerated: boolean }): string[] {
  const { name, directory } = service;
  return [
    `npm install (links the workspace @study/${name}), ${done.generated ? "" : "npm run generate, "}npx tsc -b ${directory}`,
    `make it yours: its API in proto/study/${name}/v1/${name}.proto, its schema in ${directory}/prisma/schema.prisma (then ` +
      "rewrite the first migration with prisma migrate diff --from-empty), its domain, use cases and tests",
    `its events: the consumer (${directory}/src/adapters/events/) subscribes to everything notifications handles, keep what it ` +
      "needs; an event it publishes goes in proto/study/events/v1/ with EVENT_TYPES in libs/events",
    (done.deploymentGenerated ? "its deployment was generated from the catalogue: " : "its deployment: ") +
      "its calls, settings and Secret keys in libs/testkit/src/deployment/description.ts, then npm run deploy:generate; " +
      `by hand, its image in both k8s overlays (k8s/README.md, "Adding a service")`,
    "if the gateway exposes it over REST: a typed client in gateway/src/clients.ts and its routes",
    `describe it in ${directory}/README.md, and link that README from README.md and docs/architecture.md; then npm run docs:events ` +
      "and npm run docs:configuration (their unit tests fail while the pages miss the new service)",
  ];
}
