import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";

const ROOT = resolve(__dirname, "..", "..", "..", "..");

/** docs/events.md is generated from the sources (scripts/events-doc.mjs): a new event or consumer updates it. */
describe("docs/events.md", () => {
  it("is what `npm run docs:events` makes of the current sources", () => {
    expect(() => execFileSync(process.execPath, [join(ROOT, "scripts", "events-doc.mjs"), "--check"], { cwd: ROOT, stdio: "pipe" })).not.toThrow();
  });
});
