import { readdirSync, readFileSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";

const ROOT = resolve(__dirname, "..", "..", "..");

/** The .ts files below a folder (generated code left out). */
function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !path.includes(`${join("src", "generated")}`));
}

interface FoundConsumer {
  /** The app folder: `services/<name>` or `gateway`. */
  app: string;
  /** The module that calls startConsumer, relative to the repo. */
  module: string;
  /** The consumer name (its queues are `<exchange>.<name>`). */
  name: string;
}

/**
 * Every startConsumer call of the apps, found in their sources, with the consumer name it passes: a constant of
 * the same module (`consumer: CONSUMER_NAME` with `export const CONSUMER_NAME = "search"`) or a string.
 */
function consumersInSources(): FoundConsumer[] {
  const apps = [...readdirSync(join(ROOT, "services")).map((name) => join("services", name)), "gateway"];
  const found: FoundConsumer[] = [];
  for (const app of apps) {
    for (const path of sources(join(ROOT, app, "src"))) {
      const text = readFileSync(path, "utf8");
      for (const call of text.matchAll(/startConsumer(?:<[^>(]*>)?\(\{/g)) {
        const option = /consumer:\s*(?:"([^"]+)"|([A-Z_][A-Z0-9_]*))/.exec(text.slice(call.index));
        const constant = option?.[2] && new RegExp(`export const ${option[2]} = "([^"]+)"`).exec(text);
        const name = option?.[1] ?? (constant ? constant[1] : undefined);
        if (!name) throw new Error(`${relative(ROOT, path)}: a startConsumer call whose consumer name this test cannot read`);
        found.push({ app, module: relative(ROOT, path), name });
      }
    }
  }
  return found;
}

/**
 * Keeps the dead-letter drills and the runbook (docs/operations.md) complete: a consumer added to any app fails this test until
 * its app has a test that drills it (runDeadLetterDrill, importing the consumer's module) and the runbook's table
 * names its queues.
 */
describe("every event consumer has a dead-letter drill and a row in the runbook", () => {
  const consumers = consumersInSources();
  const runbook = readFileSync(join(ROOT, "docs", "operations.md"), "utf8");

  it("finds the consumers of the apps, each under a name of its own", () => {
    expect(consumers.length).toBeGreaterThanOrEqual(11);
    // Two processes consuming under one name would share a queue and take each other's events.
    const names = consumers.map((consumer) => consumer.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(consumersInSources().map((consumer) => [consumer.name, consumer]))("%s is drilled by a test of its app", (_name, consumer) => {
    const moduleName = basename(consumer.module, ".ts");
    const testFolder = join(ROOT, consumer.app, "test");
    const drills = sources(testFolder)
      .filter((path) => path.endsWith(".test.ts"))
      .filter((path) => {
        const text = readFileSync(path, "utf8");
        return text.includes("runDeadLetterDrill(") && text.includes(`/adapters/events/${moduleName}"`);
      });
    expect(drills.map((path) => relative(ROOT, path))).not.toEqual([]);
  });

  it.each(consumersInSources().map((consumer) => [consumer.name]))("the runbook's table names the queues of %s", (name) => {
    expect(runbook).toContain(`| \`study.events.${name}\` |`);
  });
});
