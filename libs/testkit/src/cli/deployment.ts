/**
 * `npm run deploy:generate`: writes the apps' parts of docker-compose.yml and k8s/base from the service catalogue
 * and libs/testkit/src/deployment/description.ts (see ../deployment/index.ts). A unit test
 * (libs/testkit/test/unit/deployment-generated.test.ts) fails when the committed files differ.
 */
import { resolve } from "node:path";
import { CATALOGUE } from "@study/platform/catalogue";
import { writeDeployment } from "../deployment";

/** The repository, from libs/testkit/dist/cli. */
const root = resolve(__dirname, "..", "..", "..", "..");
const changed = writeDeployment(CATALOGUE, root);
process.stdout.write(
  changed.length === 0
    ? "deploy:generate: every file was up to date\n"
    : `deploy:generate: wrote ${changed.length} files\n${changed.map((f) => `  ${f}\n`).join("")}`,
);
