import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { booleanString, boundedInteger, emptyAsUnset } from "@study/platform";
import { CATALOGUE } from "@study/platform/catalogue";
import { z } from "zod";
import {
  describeSetting,
  describeSettings,
  INTERNAL_ENVIRONMENT,
  loadProcessSchemas,
  OUTSIDE_ZOD,
  PROCESSES,
  renderConfigurationDoc,
} from "../../src/configuration-doc";

const ROOT = resolve(__dirname, "..", "..", "..", "..");
const schemas = loadProcessSchemas(ROOT, "src");

/** The TypeScript sources of production code and of the test kit (not tests: their knobs are in docs/testing.md). */
function sourceFiles(): string[] {
  const folders = [
    "gateway/src",
    ...readdirSync(join(ROOT, "services")).map((name) => `services/${name}/src`),
    ...readdirSync(join(ROOT, "libs")).map((name) => `libs/${name}/src`),
  ];
  return folders.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts") && !file.startsWith("generated/") && !file.startsWith("gen/"))
      .map((file) => `${folder}/${file}`),
  );
}

/** docs/configuration.md is generated from the zod schemas (`npm run docs:configuration`): a new setting updates it. */
describe("docs/configuration.md", () => {
  it("is what `npm run docs:configuration` makes of the current schemas", () => {
    expect(readFileSync(join(ROOT, "docs", "configuration.md"), "utf8")).toBe(renderConfigurationDoc(schemas));
  });

  it("explains every setting: each has a .describe() text in its schema", () => {
    const undescribed = PROCESSES.flatMap((process) => {
      const schema = schemas.get(process.name);
      return schema
        ? describeSettings(schema)
            .filter((setting) => setting.meaning === "")
            .map((setting) => `${process.name}: ${setting.name}`)
        : [];
    });
    expect(undescribed).toEqual([]);
  });

  it("names every process of the catalogue and every schema the sources hand to the runtime", () => {
    // A schema is known by the app (or lib) whose module exports it: `gateway`, `services/media`, `libs/runtime`.
    const appOf = (path: string) =>
      path
        .split("/")
        .slice(0, path.startsWith("gateway/") ? 1 : 2)
        .join("/");
    const known = new Set(PROCESSES.map((process) => `${appOf(process.module)} ${process.schemaExport}`));
    const expected = CATALOGUE.flatMap((service) => [
      `${service.directory}/src/service.ts`,
      ...(service.extraProcesses ?? []).map((extra) => `${service.directory}/src/${extra.script.replace(/^dist\/(.*)\.js$/, "$1")}.ts`),
    ]);
    expect(expected.filter((entry) => !PROCESSES.some((process) => process.entry === entry))).toEqual([]);

    // `configSchema: x`, `const configSchema = x.extend(…)` (the gateway's) and `loadConfig(x` name the schema a process reads.
    const handed = sourceFiles().flatMap((file) => {
      const text = readFileSync(join(ROOT, file), "utf8");
      return [...text.matchAll(/configSchema: (\w+Schema)\b|const configSchema = (\w+)\.extend|loadConfig\((\w+Schema)[,)]/g)].map(
        (match) => `${appOf(file)} ${match[1] ?? match[2] ?? match[3]}`,
      );
    });
    expect(handed.filter((use) => !known.has(use))).toEqual([]);
  });

  it("lists every variable read outside the schemas, and only those still read", () => {
    const documented = new Set(describeSettingsOfAll());
    const read = new Map<string, string>();
    for (const file of sourceFiles()) {
      for (const match of readFileSync(join(ROOT, file), "utf8").matchAll(/\benv\??\.([A-Z][A-Z0-9_]+)/g)) read.set(match[1], file);
    }
    const outside = new Set(OUTSIDE_ZOD.map((setting) => setting.name));
    const unlisted = [...read].filter(([name]) => !documented.has(name) && !outside.has(name) && !INTERNAL_ENVIRONMENT.has(name));
    expect(unlisted.map(([name, file]) => `${name} (${file})`)).toEqual([]);
    expect([...outside].filter((name) => !read.has(name))).toEqual([]);
  });
});

/** What the page says of a setting is read from zod's definitions, through the wrappers settings are made of. */
describe("describeSetting", () => {
  it("reads the default, bounds and description through z.preprocess", () => {
    expect(describeSetting("LIMIT", boundedInteger(1, 50, 8).describe("Passages."))).toEqual({
      name: "LIMIT",
      default: "`8`",
      type: "whole number, 1 to 50",
      meaning: "Passages.",
    });
  });

  it("says required, unset or empty, and names enum values", () => {
    expect(describeSetting("MODE", z.enum(["embedded", "meilisearch"]))).toMatchObject({
      default: "**required**",
      type: "`embedded` or `meilisearch`",
    });
    expect(describeSetting("BUCKET", z.preprocess(emptyAsUnset, z.string().min(1).optional()))).toMatchObject({ default: "unset", type: "text" });
    expect(describeSetting("LIST", z.string().default(""))).toMatchObject({ default: "empty" });
    expect(describeSetting("FLAG", booleanString(false))).toMatchObject({ default: "`false`", type: "`0`, `1`, `true` or `false`" });
  });

  it("takes a refinement's or a format's message as the type, also behind .transform() and .pipe()", () => {
    const cron = z
      .string()
      .default("7 * * * *")
      .refine(() => true, "must be a cron pattern, e.g. 7 * * * *");
    expect(describeSetting("CRON", cron)).toMatchObject({ default: "`7 * * * *`", type: "a cron pattern, e.g. 7 * * * *" });
    const url = z
      .string()
      .trim()
      .optional()
      .transform((value) => value || undefined)
      .pipe(z.url({ protocol: /^https?$/ }).optional());
    expect(describeSetting("UPLOAD_URL", url)).toMatchObject({ default: "unset", type: "http(s) URL" });
    expect(describeSetting("ADDRESS", z.string().regex(/^[\w.-]+:\d+$/, "must be host:port"))).toMatchObject({ type: "host:port" });
  });
});

function describeSettingsOfAll(): string[] {
  return [...schemas.values()].flatMap((schema) => describeSettings(schema).map((setting) => setting.name));
}
