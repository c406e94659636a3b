/**
 * `npm run docs:events`: writes docs/events.md from the sources (see ../event-wiring.ts). A unit test
 * (libs/testkit/test/unit/events-doc.test.ts) fails when the committed page differs.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { renderEventsDoc } from "../event-wiring";

/** The repository, from libs/testkit/dist/cli. */
const root = resolve(__dirname, "..", "..", "..", "..");
writeFileSync(join(root, "docs", "events.md"), renderEventsDoc(root));
process.stdout.write("docs:events: docs/events.md written\n");
