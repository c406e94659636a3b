import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";

/** A Debian package and the file whose presence shows it is installed. */
export interface AptRequirement {
  package: string;
  installs: string;
}

/**
 * What the local stack needs from Debian: the broker, the media pipeline's tools and speech model, and the tools of
 * documents' text extraction (poppler, tesseract with its English data, antiword, catdoc, unrtf).
 */
export const STACK_PACKAGES: AptRequirement[] = [
  { package: "rabbitmq-server", installs: "/usr/lib/rabbitmq/bin/rabbitmq-server" },
  { package: "ffmpeg", installs: "/usr/bin/ffmpeg" },
  { package: "pocketsphinx", installs: "/usr/bin/pocketsphinx_continuous" },
  { package: "pocketsphinx-en-us", installs: "/usr/share/pocketsphinx/model/en-us" },
  { package: "yt-dlp", installs: "/usr/bin/yt-dlp" },
  { package: "poppler-utils", installs: "/usr/bin/pdftotext" },
  { package: "tesseract-ocr", installs: "/usr/bin/tesseract" },
  { package: "tesseract-ocr-eng", installs: "/usr/share/tesseract-ocr/5/tessdata/eng.traineddata" },
  { package: "antiword", installs: "/usr/bin/antiword" },
  { package: "catdoc", installs: "/usr/bin/catdoc" },
  { package: "unrtf", installs: "/usr/bin/unrtf" },
];

/**
 * Debian's Chromium, for the browser test of Swagger UI (gateway/test/e2e/swagger-browser.test.ts): driven by
 * playwright-core, which downloads no browser (none could be here) and runs this one.
 */
export const CHROMIUM: AptRequirement = { package: "chromium", installs: "/usr/bin/chromium" };

export interface AptOptions {
  /** The apt-get to run (a test gives a stand-in). */
  aptGet?: string;
  /** Bound of each apt-get call, waiting for another's dpkg lock included (default 10 minutes). */
  timeoutMs?: number;
}

/**
 * Installs the missing packages with apt-get when running as root; otherwise names the command to run.
 * One apt-get call for all of them (≈ 20 s the first time, nothing afterwards). Another apt-get holding the dpkg lock
 * (unattended upgrades) is waited for, within the bound, rather than failing at once or hanging.
 */
export function ensureAptPackages(requirements: AptRequirement[], log: (line: string) => void = () => undefined, options: AptOptions = {}): void {
  const missing = requirements.filter((r) => !existsSync(r.installs)).map((r) => r.package);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`missing Debian packages: run \`sudo apt-get install -y ${missing.join(" ")}\``);
  }
  log(`installing ${missing.join(", ")} with apt-get (one time)`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const timeoutMs = options.timeoutMs ?? 600_000;
  const lockWait = ["-o", `DPkg::Lock::Timeout=${Math.max(1, Math.floor(timeoutMs / 1000) - 1)}`];
  const aptGet = (args: string[]) => {
    const result = spawnSync(options.aptGet ?? "apt-get", [...lockWait, ...args], {
      env,
      stdio: "ignore",
      timeout: timeoutMs,
      killSignal: "SIGKILL",
    });
    if (result.error && "code" in result.error && result.error.code === "ETIMEDOUT") {
      throw new Error(`apt-get did not finish within ${timeoutMs / 1000} s (is another package manager holding the dpkg lock?)`);
    }
    return result;
  };
  const install = () => aptGet(["install", "-y", "-qq", "--no-install-recommends", ...missing]);
  let result = install();
  if (result.status !== 0) {
    aptGet(["update", "-qq"]);
    result = install();
  }
  const still = requirements.filter((r) => missing.includes(r.package) && !existsSync(r.installs));
  if (result.status !== 0 || still.length > 0) throw new Error(`apt-get could not install ${missing.join(" ")}`);
}
