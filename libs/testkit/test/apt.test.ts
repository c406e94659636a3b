import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureAptPackages } from "../src/apt";

const asRoot = process.getuid?.() === 0;

describe("ensureAptPackages", () => {
  const folder = mkdtempSync(join(tmpdir(), "apt-"));
  const missing = [{ package: "some-package", installs: join(folder, "never-installed") }];

  /** An apt-get that records its arguments, then waits as one blocked on another's dpkg lock does. */
  const blockedAptGet = () => {
    const script = join(folder, "apt-get");
    writeFileSync(script, `#!/bin/sh\necho "$@" >> ${join(folder, "calls")}\nexec sleep 30\n`);
    chmodSync(script, 0o755);
    return script;
  };

  (asRoot ? it : it.skip)("waits for the dpkg lock within a bound, then says what blocked it", () => {
    const began = Date.now();
    expect(() => ensureAptPackages(missing, () => undefined, { aptGet: blockedAptGet(), timeoutMs: 2_000 })).toThrow(
      "apt-get did not finish within 2 s (is another package manager holding the dpkg lock?)",
    );
    expect(Date.now() - began).toBeLessThan(15_000);
    expect(readFileSync(join(folder, "calls"), "utf8")).toContain("-o DPkg::Lock::Timeout=1 install -y -qq --no-install-recommends some-package");
  });

  (asRoot ? it.skip : it)("names the command to run when it may not install", () => {
    expect(() => ensureAptPackages(missing)).toThrow("missing Debian packages: run `sudo apt-get install -y some-package`");
  });
});
