import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { CATALOGUE, GATEWAY_APP, type CatalogueEntry } from "@study/platform/catalogue";
import { CATALOGUE_FILE, CONTRACTS_INDEX, ROOT_TSCONFIG, renamer, scaffoldService } from "../../src/new-service";

const REPOSITORY = resolve(__dirname, "..", "..", "..", "..");

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(folder, entry.name)) : [join(folder, entry.name)],
  );
}

/** A copy of what the scaffold edits; the exemplar is read from the repository. */
function repositoryCopy(): string {
  const root = mkdtempSync(join(tmpdir(), "new-service-"));
  for (const file of [CATALOGUE_FILE, CONTRACTS_INDEX, ROOT_TSCONFIG]) cpSync(join(REPOSITORY, file), join(root, file));
  return root;
}

describe("npm run new:service", () => {
  let root: string;
  beforeEach(() => {
    root = repositoryCopy();
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("copies the exemplar's sources, tests and migration under the new names, without build output or generated code", () => {
    const service = scaffoldService({ name: "reminders", root, now: new Date("2026-12-01T10:20:30Z") });

    const exemplarSources = filesUnder(join(REPOSITORY, "services/notifications"))
      .map((file) => relative(join(REPOSITORY, "services/notifications"), file))
      .filter((file) => !/^(dist|src\/generated|node_modules)\//.test(file) && /\.(ts|json|prisma|sql)$/.test(file));
    const copied = filesUnder(join(root, "services/reminders")).map((file) => relative(join(root, "services/reminders"), file));
    expect(copied.sort()).toEqual(
      [
        ...exemplarSources.map((file) =>
          file
            .replace(/notifications/g, "reminders")
            .replace(/notification/g, "reminder")
            .replace(/migrations\/\d+_init/, "migrations/20261201102030_init"),
        ),
        "README.md",
      ].sort(),
    );
    expect(copied).toContain("src/adapters/db/prisma-reminder-repository.ts");
    expect(copied).toContain("test/unit/in-memory-reminder-repository.ts");

    const sources = filesUnder(join(root, "services/reminders")).filter((file) => !file.endsWith("README.md"));
    expect(sources.filter((file) => /notification/i.test(readFileSync(file, "utf8")))).toEqual([]);
    const text = (file: string) => readFileSync(join(root, "services/reminders", file), "utf8");
    expect(JSON.parse(text("package.json"))).toMatchObject({ name: "@study/reminders", main: "dist/main.js" });
    expect(text("src/service.ts")).toContain('import { reminders as api } from "@study/contracts";');
    expect(text("src/service.ts")).toContain("export const remindersService: ServiceDefinition<PrismaClient, RemindersConfig> = {");
    expect(text("src/adapters/events/domain-events-consumer.ts")).toContain('export const CONSUMER_NAME = "reminders";');
    expect(text("src/instrumentation.ts")).toContain('startTelemetry("reminders");');
    expect(text("src/migrations.ts")).toContain('name: "reminders",');
    // Its settings take the service's name as their prefix; its default port is its catalogue port.
    expect(text("src/config.ts")).toMatch(new RegExp(`GRPC_PORT: \\w+\\(${service.grpcPort}\\)`));
    expect(text("src/config.ts")).toMatch(/^ {2}REMINDERS_CLEANUP_CRON: /m);
    expect(text("src/config.ts")).toMatch(/^ {2}REMINDERS_RETENTION_DAYS: /m);
    expect(text("prisma/schema.prisma")).toContain('@@map("reminder")');
    expect(text("prisma/migrations/20261201102030_init/migration.sql")).toContain('CREATE TABLE "reminder" (');
    expect(text("README.md")).toContain("# The reminders service");
  });

  it("writes the service's own API: the exemplar's proto under the new package, exported by the contracts", () => {
    scaffoldService({ name: "reminders", root });

    const proto = readFileSync(join(root, "proto/study/reminders/v1/reminders.proto"), "utf8");
    expect(proto).toContain("package study.reminders.v1;");
    expect(proto).toContain("service RemindersService {");
    expect(proto).toContain("rpc ListReminders(ListRemindersRequest) returns (ListRemindersResponse);");
    expect(proto).toContain("REMINDER_TYPE_UNSPECIFIED = 0;");
    expect(proto).not.toMatch(/notification/i);
    expect(readFileSync(join(root, CONTRACTS_INDEX), "utf8")).toContain('export * as reminders from "./gen/study/reminders/v1/reminders";\n');
  });

  it("adds the catalogue entry on the next free gRPC port and the root tsconfig reference", () => {
    const service = scaffoldService({ name: "reminders", root });

    const taken = [
      GATEWAY_APP.grpcPort,
      ...CATALOGUE.flatMap((entry: CatalogueEntry) => [entry.grpcPort, ...(entry.http ?? []).map((http) => http.defaultPort)]),
    ];
    expect(taken).not.toContain(service.grpcPort);
    expect(service.grpcPort).toBeGreaterThan(Math.max(...CATALOGUE.map((entry) => entry.grpcPort)));
    // The edited catalogue is a module that lists the new entry last.
    const edited = jest.requireActual<{ CATALOGUE: CatalogueEntry[] }>(join(root, CATALOGUE_FILE)).CATALOGUE;
    expect(edited).toEqual([
      ...CATALOGUE,
      { name: "reminders", directory: "services/reminders", grpcAddressVariable: "REMINDERS_GRPC_ADDRESS", grpcPort: service.grpcPort },
    ]);
    const references = (JSON.parse(readFileSync(join(root, ROOT_TSCONFIG), "utf8")) as { references: { path: string }[] }).references.map(
      (reference) => reference.path,
    );
    expect(references.filter((path) => path.startsWith("services/"))).toEqual([...CATALOGUE.map((entry) => entry.directory), "services/reminders"]);
  });

  it("refuses a name already taken, not one word, or without an entity of its own, and then writes nothing", () => {
    const before = filesUnder(root).map((file) => [file, readFileSync(file, "utf8")]);
    expect(() => scaffoldService({ name: "notifications", root })).toThrow(/has a service "notifications"/);
    expect(() => scaffoldService({ name: "study-groups", root })).toThrow(/one lower-case word/);
    expect(() => scaffoldService({ name: "inbox", root })).toThrow(/give --entity/);
    expect(() => scaffoldService({ name: "health", root })).toThrow(/names a part of the system/);
    expect(filesUnder(root).map((file) => [file, readFileSync(file, "utf8")])).toEqual(before);
    expect(existsSync(join(root, "services"))).toBe(false);

    expect(scaffoldService({ name: "inbox", entity: "message", root }).files).toContain("services/inbox/src/domain/message.ts");
    expect(existsSync(join(root, "proto/study/inbox/v1/inbox.proto"))).toBe(true);
  });

  it("renames every spelling, settings by the service's name and the exemplar's port", () => {
    const rename = renamer({ name: "reminders", entity: "reminder", settings: ["NOTIFICATION_CLEANUP_CRON"], exemplarPort: 50052, grpcPort: 50060 });
    expect(rename("NotificationsServiceService notificationsService listNotifications Notification notification_type")).toBe(
      "RemindersServiceService remindersService listReminders Reminder reminder_type",
    );
    expect(rename("NOTIFICATION_TYPE_SYSTEM NOTIFICATION_CLEANUP_CRON port(50052) 500520")).toBe(
      "REMINDER_TYPE_SYSTEM REMINDERS_CLEANUP_CRON port(50060) 500520",
    );
    expect(rename("Prisma.NotificationSelect NOTIFICATIONS_GRPC_ADDRESS")).toBe("Prisma.ReminderSelect REMINDERS_GRPC_ADDRESS");
  });
});
