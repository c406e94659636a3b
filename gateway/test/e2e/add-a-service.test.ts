/**
 * The recipe "Adding a service" of docs/development.md, followed for real: `npm run new:service` scaffolds a
 * service from the exemplar (services/notifications) into a temporary copy of the files it edits — never into the
 * repository — which is then generated and built as `npm run build` would (its Prisma client, its own gRPC
 * contracts; swc per file instead of tsc, for time) and started by the stack runner with the copy's catalogue. The
 * stack and the gateway take the catalogue as an option; nothing else in them names the new service.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import type {
  CallOptions,
  ChannelCredentials,
  Client as GrpcClient,
  ClientUnaryCall,
  Metadata,
  ServiceDefinition,
  ServiceError,
} from "@grpc/grpc-js";
import { transformFileSync } from "@swc/core";
import { checkHealth, createClient } from "@study/grpc";
import type { Catalogue } from "@study/platform/catalogue";
import { eventually, httpClient, signCallsAs, signUpUser, startTestStack, type TestStack } from "@study/testkit";
import { CATALOGUE_FILE, CONTRACTS_INDEX, ROOT_TSCONFIG, scaffoldService, type NewService } from "@study/testkit/new-service";
import { load } from "js-yaml";
import { Client } from "pg";

const REPOSITORY = join(__dirname, "..", "..", "..");

/** The part of the copy's generated API this test calls (its TypeScript is generated in the copy, not in the repository). */
interface RemindersServiceClient extends GrpcClient {
  listReminders(
    request: { userId: string; limit: number; includeRead: boolean },
    metadata: Metadata,
    options: Partial<CallOptions>,
    callback: (error: ServiceError | null, response: { reminders: { content: string }[] }) => void,
  ): ClientUnaryCall;
}
interface RemindersApi {
  RemindersServiceClient: new (address: string, credentials: ChannelCredentials) => RemindersServiceClient;
  RemindersServiceService: ServiceDefinition;
}
const bin = (tool: string) => join(REPOSITORY, "node_modules", ".bin", tool);
const run = promisify(execFile);

/**
 * A TypeScript file of `src` as the build leaves it in `dist`, with swc: one file at a time, no type check (tsc -b
 * does that; the copy's types were checked by hand, docs/development.md).
 */
function compile(src: string, dist: string, source: string): void {
  const { code } = transformFileSync(source, {
    jsc: { parser: { syntax: "typescript" }, target: "es2022" },
    module: { type: "commonjs" },
    swcrc: false,
  });
  const target = join(dist, relative(src, source).replace(/\.ts$/, ".js"));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, code);
}

function typescriptUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? typescriptUnder(join(folder, entry.name)) : entry.name.endsWith(".ts") ? [join(folder, entry.name)] : [],
  );
}

/**
 * A temporary repository holding what the scaffold edits, and what the copy resolves through it: the repository's
 * node_modules, and libs/db (the service's prisma.config.ts imports its source).
 */
function temporaryRepository(): string {
  const root = mkdtempSync(join(process.env.STUDY_TEST_BASE_DIR ?? tmpdir(), "add-a-service-"));
  for (const file of [CATALOGUE_FILE, CONTRACTS_INDEX, ROOT_TSCONFIG, "tsconfig.base.json", "proto/buf.yaml", "libs/contracts/package.json"]) {
    cpSync(join(REPOSITORY, file), join(root, file));
  }
  symlinkSync(join(REPOSITORY, "node_modules"), join(root, "node_modules"));
  symlinkSync(join(REPOSITORY, "libs", "db"), join(root, "libs", "db"));
  return root;
}

/** `npm run generate` and the build for the new service only: its Prisma client, its contracts, its dist/. */
async function build(root: string, service: NewService): Promise<void> {
  const folder = join(root, service.directory);
  const contracts = join(root, "libs", "contracts");
  // Its gRPC API generated as `npm run generate` does (proto/buf.gen.yaml's plugin and options, into the copy),
  // beside its Prisma client: two processes of a second or so each.
  const template = load(readFileSync(join(REPOSITORY, "proto", "buf.gen.yaml"), "utf8")) as { plugins: { out: string }[] };
  template.plugins = template.plugins.map((plugin) => ({ ...plugin, out: join(contracts, "src", "gen") }));
  const proto = join(root, "proto", "study", service.name, "v1", `${service.name}.proto`);
  await Promise.all([
    run(bin("prisma"), ["generate"], {
      cwd: folder,
      env: { ...process.env, DATABASE_URL: "postgresql://localhost/unused", CHECKPOINT_DISABLE: "1" },
    }),
    run(bin("buf"), ["generate", join(root, "proto"), "--path", proto, "--template", JSON.stringify(template)], { cwd: REPOSITORY }),
  ]);
  for (const source of typescriptUnder(join(folder, "src"))) compile(join(folder, "src"), join(folder, "dist"), source);
  // The contracts package: the repository's build (its JavaScript), plus the edited index and the new service's API.
  cpSync(join(REPOSITORY, "libs", "contracts", "dist"), join(contracts, "dist"), {
    recursive: true,
    filter: (source) => !/\.(d\.ts|map)$/.test(source),
  });
  for (const source of [join(contracts, "src", "index.ts"), join(contracts, "src", "gen", "study", service.name, "v1", `${service.name}.ts`)]) {
    compile(join(contracts, "src"), join(contracts, "dist"), source);
  }
  // Nearer to the copy's services than the repository's node_modules: their @study/contracts is the copy's.
  mkdirSync(join(root, "services", "node_modules", "@study"), { recursive: true });
  symlinkSync(contracts, join(root, "services", "node_modules", "@study", "contracts"));

  compile(join(root, "libs", "platform", "src"), join(root, "libs", "platform", "dist"), join(root, CATALOGUE_FILE));
  // The gateway's own main.ts, with the copy's catalogue given as an option instead of the repository's.
  writeFileSync(
    join(root, "gateway.js"),
    [
      'require("@study/gateway/dist/instrumentation");',
      'const { startGateway } = require("@study/gateway/dist/gateway");',
      'const { runMain } = require("@study/platform");',
      'const { CATALOGUE } = require("./libs/platform/dist/catalogue");',
      "runMain(() => startGateway({ catalogue: CATALOGUE }));",
    ].join("\n"),
  );
}

describe("adding a service with npm run new:service", () => {
  let root: string;
  let service: NewService;
  let catalogue: Catalogue;
  let stack: TestStack;

  beforeAll(async () => {
    root = temporaryRepository();
    service = scaffoldService({ name: "reminders", root });
    await build(root, service);
    // The copy's catalogue; the stack runs the new service from the copy, the others from the repository.
    const copied = jest.requireActual<{ CATALOGUE: Catalogue }>(join(root, "libs", "platform", "dist", "catalogue.js")).CATALOGUE;
    catalogue = copied.map((entry) => (entry.name === service.name ? { ...entry, directory: join(root, entry.directory) } : entry));
    stack = await startTestStack({ catalogue, gatewayEntry: join(root, "gateway.js"), without: ["media-worker"] });
  }, 180_000);

  afterAll(async () => {
    await stack?.stopAll();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("the stack migrates and starts it, and the gateway's GET /health lists it SERVING", async () => {
    expect(await checkHealth(stack.serviceAddresses.reminders)).toBe("SERVING");

    const client = new Client({ connectionString: stack.databaseUrl("reminders") });
    await client.connect();
    const { rows } = await client.query("SELECT to_regclass('reminder') IS NOT NULL AS migrated");
    await client.end();
    expect(rows).toEqual([{ migrated: true }]);

    const response = await fetch(`${stack.gatewayUrl}/health`);
    const body = (await response.json()) as { services: Record<string, string> };
    expect({ status: response.status, services: body.services }).toEqual({
      status: 200,
      services: Object.fromEntries(catalogue.map((entry) => [entry.name, "SERVING"])),
    });
  });

  it("serves its own gRPC API, and its consumer handles events: a new user gets the exemplar's welcome", async () => {
    const api = jest.requireActual<RemindersApi>(join(root, "libs", "contracts", "dist", "gen", "study", "reminders", "v1", "reminders.js"));
    signCallsAs(stack.internalAuth, "gateway");
    const reminders = createClient(api.RemindersServiceClient, api.RemindersServiceService, stack.serviceAddresses.reminders);
    const user = await signUpUser(httpClient(stack.gatewayUrl), { name: "Ada" });
    try {
      const listed = await eventually(async () => {
        const page = await reminders.listReminders({ userId: user.userId, limit: 0, includeRead: true });
        return page.reminders.length > 0 && page.reminders;
      }, 30_000);
      expect(listed.map((reminder) => reminder.content)).toEqual([expect.stringMatching(/^Welcome to Study, Ada!/)]);
    } finally {
      reminders.close();
    }
  });
});
