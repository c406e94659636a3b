import { appendFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { InternalAuthKeys } from "@study/grpc";
import { startTestStack, type TestStack } from "./e2e";
import { startMediaServer, type LocalMediaServer } from "./peers/media-server";
import { startGatewayProcess, type GatewayProcess } from "./stack";
import { WEB_APP_BASE } from "./web-app";

/** What a test file learns of the run's shared stack (it runs in jest's main process, not in the test's worker). */
export interface SharedStack {
  gatewayUrl: string;
  /** The web app the gateway serves (its CLIENT_URL): `<gatewayUrl>/app`. */
  webAppUrl: string;
  gatewayGrpcAddress: string;
  serviceAddresses: Record<string, string>;
  /** The stack's processes' keys (see `RunningStack.internalAuth`). */
  internalAuth: InternalAuthKeys;
  exchange: string;
  /** The Stripe stand-in of the stack (its `/_standin/` routes complete checkouts and settle payouts). */
  stripeUrl: string;
  /**
   * A server of audio and video files the stack's media service may download from (allow-listed): a file written
   * under `root` (in a folder of your own there, e.g. named after the test file) is at `url` + its path there.
   */
  mediaServer: { url: string; root: string };
  /** Where media and documents keep stored files and their jobs' temporary files (the shared stack's settings). */
  folders: { mediaStorage: string; mediaWork: string; documentsStorage: string; documentsWork: string };
  /**
   * Every line the stack's processes log (`[app] line`, LOG_LEVEL warn), appended as it comes: for a test that
   * must see what a service logged (e.g. media's UPLOAD_INTERRUPTED). Other files run beside yours: look only
   * for lines of your own users (their ids).
   */
  logFile: string;
  /** Process id of each app of the stack (e.g. "gateway", "media"), e.g. to read its memory use. */
  pids: Record<string, number | undefined>;
  /** Database URL of one app of the stack (e.g. "gateway"). */
  databaseUrl(app: string): string;
}

/** The settings of the shared stack's gateway (database, secrets, keys, service addresses), for replicas. */
const GATEWAY_SETTINGS_ENV = "STUDY_TEST_SHARED_GATEWAY_ENV";

const ENV = "STUDY_TEST_SHARED_STACK";
const holder = globalThis as { __studySharedStack?: TestStack; __studySharedMediaServer?: LocalMediaServer };

/**
 * Starts the run's shared stack (jest's e2e global set-up) and publishes where it listens to the test workers,
 * which inherit the environment of jest's main process.
 */
export async function startSharedStack(): Promise<void> {
  if (holder.__studySharedStack) return;
  // Stored and temporary files (media's, documents') in the run's folder, never in the repository's .data/.
  const folder = mkdtempSync(join(process.env.STUDY_TEST_BASE_DIR ?? tmpdir(), "shared-stack-"));
  // Media's worker downloads audio and video links only from allow-listed hosts; tests serve theirs from here.
  const served = join(folder, "served");
  mkdirSync(served);
  const folders = {
    mediaStorage: join(folder, "storage"),
    mediaWork: join(folder, "work"),
    documentsStorage: join(folder, "documents"),
    documentsWork: join(folder, "documents-work"),
  };
  const mediaServer = await startMediaServer({ root: served });
  holder.__studySharedMediaServer = mediaServer;
  // The processes' lines, also in a file that test files (other processes) read (SharedStack.logFile).
  const logs: string[] = [];
  const logFile = join(folder, "stack.log");
  const log = (app: string, line: string) => {
    logs.push(`[${app}] ${line}`);
    appendFileSync(logFile, `[${app}] ${line}\n`);
  };
  const started = await startTestStack({
    webApp: true,
    log,
    // Every file's users sign up and in from one address (127.0.0.1): the default 30 a minute is a few files' worth.
    gatewayEnv: { AUTH_RATE_LIMIT_PER_MINUTE: "1000" },
    env: {
      MEDIA_DOWNLOAD_ALLOWLIST: `127.0.0.1:${mediaServer.port}`,
      // A cancelled import stops within a third of a second (the default checks every 2 s).
      MEDIA_CANCEL_CHECK_MS: "300",
      MEDIA_STORAGE_DIR: folders.mediaStorage,
      MEDIA_WORK_DIR: folders.mediaWork,
      DOCUMENTS_STORAGE_DIR: folders.documentsStorage,
      DOCUMENTS_WORK_DIR: folders.documentsWork,
    },
  }).catch((error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${logs.slice(-40).join("\n")}`, { cause: error });
  });
  const stack: TestStack = { ...started, logs };
  holder.__studySharedStack = stack;
  const apps = ["gateway", ...Object.keys(stack.serviceAddresses)];
  const description = {
    gatewayUrl: stack.gatewayUrl,
    webAppUrl: `${stack.gatewayUrl}${WEB_APP_BASE}`,
    gatewayGrpcAddress: stack.gatewayGrpcAddress,
    serviceAddresses: stack.serviceAddresses,
    internalAuth: stack.internalAuth,
    exchange: stack.exchange,
    stripeUrl: stack.stripe?.url ?? "",
    mediaServer: { url: mediaServer.url, root: served },
    folders,
    logFile,
    pids: Object.fromEntries(apps.map((app) => [app, stack.pid(app)])),
    databaseUrls: Object.fromEntries(apps.map((app) => [app, stack.databaseUrl(app)])),
  };
  process.env[ENV] = JSON.stringify(description);
  const { PORT: _port, GRPC_PORT: _grpcPort, ...gatewaySettings } = stack.envOf("gateway");
  process.env[GATEWAY_SETTINGS_ENV] = JSON.stringify(gatewaySettings);
}

/** Stops the shared stack (jest's global teardown); its logs are printed when E2E_DUMP_LOGS is set. */
export async function stopSharedStack(): Promise<void> {
  const stack = holder.__studySharedStack;
  if (!stack) return;
  holder.__studySharedStack = undefined;
  if (process.env.E2E_DUMP_LOGS) process.stderr.write(`${stack.logs.join("\n")}\n`);
  await stack.stopAll();
  await holder.__studySharedMediaServer?.close();
  holder.__studySharedMediaServer = undefined;
}

/**
 * The run's shared stack, for an end-to-end test file that needs no settings of its own and stops no process:
 * it starts once per run (jest's e2e global set-up), not once per file. Files share it the way users share a
 * deployment: each test signs up its own users, so their data never meets. A file that needs other settings,
 * a peer server, or stops a process starts its own with `startTestStack(options)`.
 */
export function sharedTestStack(): SharedStack {
  const raw = process.env[ENV];
  if (!raw) throw new Error(`${ENV} is not set: run end-to-end tests through jest (its e2e global set-up starts the shared stack)`);
  const description = JSON.parse(raw) as Omit<SharedStack, "databaseUrl"> & { databaseUrls: Record<string, string> };
  return {
    gatewayUrl: description.gatewayUrl,
    webAppUrl: description.webAppUrl,
    gatewayGrpcAddress: description.gatewayGrpcAddress,
    serviceAddresses: description.serviceAddresses,
    internalAuth: description.internalAuth,
    exchange: description.exchange,
    stripeUrl: description.stripeUrl,
    mediaServer: description.mediaServer,
    folders: description.folders,
    logFile: description.logFile,
    pids: description.pids,
    databaseUrl(app) {
      const url = description.databaseUrls[app];
      if (!url) throw new Error(`the shared stack has no app ${app}`);
      return url;
    },
  };
}

/**
 * One more gateway process in front of the shared stack, as a second replica of its deployment is: the same
 * database (a session made on the shared gateway works here), secrets, keys and exchange, and the same services,
 * except for the settings given, e.g. a service's address where nothing listens, to see that service down from
 * this replica only while every other file keeps using the shared stack. Stop it in the file's afterAll.
 */
export async function startGatewayReplica(settings: Record<string, string> = {}): Promise<GatewayProcess> {
  const raw = process.env[GATEWAY_SETTINGS_ENV];
  if (!raw) throw new Error(`${GATEWAY_SETTINGS_ENV} is not set: run end-to-end tests through jest (its e2e global set-up starts the shared stack)`);
  return startGatewayProcess({ ...(JSON.parse(raw) as Record<string, string>), ...settings });
}
