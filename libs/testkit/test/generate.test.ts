import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "../src/stack";

/**
 * `npm start` builds before it starts: after a build, generating again finds nothing to do (it once regenerated the
 * contracts and every Prisma client on each start, half a minute of a restart).
 */
describe("npm run generate", () => {
  it("makes nothing again when proto/ and the Prisma schemas are those it was made from", () => {
    const output = execFileSync(process.execPath, [join(REPO_ROOT, "scripts/generate.mjs")], { cwd: REPO_ROOT, encoding: "utf8" });
    expect(output.trim()).toBe("generate: everything up to date");
  });
});
