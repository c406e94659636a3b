import { readdirSync, readFileSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { consumersInSources } from "@study/testkit/event-wiring";

const ROOT = resolve(__dirname, "..", "..", "..");

/** The .ts files below a folder (generated code left out). */
function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !path.includes(`${join("src", "generated")}`));
}

/**
 * Keeps the dead-letter drills and the runbook (docs/operations.md) complete: a consumer added to any app fails this test until
 * its app has a test that drills it (runDeadLetterDrill, importing the consumer's module) and the runbook's table
 * names its queues.
 */
describe("every event consumer has a dead-letter drill and a row in the runbook", () => {
  const consumers = consumersInSources(ROOT);
  const runbook = readFileSync(join(ROOT, "docs", "operations.md"), "utf8");

  it("finds the consumers of the apps, each under a name of its own", () => {
    expect(consumers.length).toBeGreaterThanOrEqual(11);
    // Two processes consuming under one name would share a queue and take each other's events.
    const names = consumers.map((consumer) => consumer.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(consumersInSources(ROOT).map((consumer) => [consumer.name, consumer]))("%s is drilled by a test of its app", (_name, consumer) => {
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

  it.each(consumersInSources(ROOT).map((consumer) => [consumer.name]))("the runbook's table names the queues of %s", (name) => {
    expect(runbook).toContain(`| \`study.events.${name}\` |`);
  });
});
