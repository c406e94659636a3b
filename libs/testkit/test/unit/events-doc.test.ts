import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { renderEventsDoc } from "../../src/event-wiring";

const ROOT = resolve(__dirname, "..", "..", "..", "..");

/** docs/events.md is generated from the sources (`npm run docs:events`): a new event or consumer updates it. */
describe("docs/events.md", () => {
  it("is what `npm run docs:events` makes of the current sources", () => {
    expect(readFileSync(join(ROOT, "docs", "events.md"), "utf8")).toBe(renderEventsDoc(ROOT));
  });
});
