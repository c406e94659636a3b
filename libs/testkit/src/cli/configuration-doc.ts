/**
 * `npm run docs:configuration`: writes docs/configuration.md from the processes' configuration schemas (see
 * ../configuration-doc.ts), read from the built apps: the script builds them first. A unit test
 * (libs/testkit/test/unit/configuration-doc.test.ts) fails when the committed page differs.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadProcessSchemas, renderConfigurationDoc } from "../configuration-doc";

/** The repository, from libs/testkit/dist/cli. */
const root = resolve(__dirname, "..", "..", "..", "..");
writeFileSync(join(root, "docs", "configuration.md"), renderConfigurationDoc(loadProcessSchemas(root, "dist")));
process.stdout.write("docs:configuration: docs/configuration.md written\n");
