import { parseArgs } from "node:util";
import { ConfigError, createLogger, loadConfig, runMain, type Logger } from "@study/platform";
import { signInternalCalls } from "./start-process";
import type { z } from "zod";

/** What a reindex command does once its settings are read: `print` writes a progress line for the operator. */
export interface ReindexRun<C> {
  config: C;
  logger: Logger;
  /** `--user <id>`: one user's records; absent: everyone's. */
  userId: string | undefined;
  print: (line: string) => void;
}

export interface ReindexCommand<C extends { LOG_LEVEL: string; INTERNAL_AUTH_KEY?: string }> {
  /** The logger's name, e.g. "search-reindex". */
  name: string;
  /** The service it rebuilds for: its gRPC calls are signed as that service, with its INTERNAL_AUTH_KEY. */
  service: string;
  /** How to call it, for the usage line, e.g. "node services/search/dist/reindex.js". */
  invocation: string;
  configSchema: z.ZodType<C>;
  /** Rebuilds, printing progress; answers the closing summary line. Clean-up goes in the function's own `finally`. */
  run(context: ReindexRun<C>): Promise<string>;
}

/** `--user <id>` of the command line (nothing else is accepted). */
export function userOption(argv: readonly string[], usage: string): string | undefined {
  try {
    const { values } = parseArgs({ args: [...argv], options: { user: { type: "string" } }, strict: true, allowPositionals: false });
    if (values.user !== undefined && values.user.trim() === "") throw new Error("--user needs a user id");
    return values.user?.trim();
  } catch (error) {
    throw new ConfigError(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
  }
}

/** Items per second over `ms` milliseconds, rounded (all of them when no time passed). */
export const perSecond = (items: number, ms: number): number => (ms > 0 ? Math.round((items * 1000) / ms) : items);

/**
 * A reindex: an operator's command that rebuilds derived data (search's index, chat's passages) for one user or everyone:
 * `[--user <id>]`, settings validated first, progress on stdout; a failure is one line on stderr (the stack goes to
 * the log) and a non-zero exit code.
 */
export function runReindexCommand<C extends { LOG_LEVEL: string; INTERNAL_AUTH_KEY?: string }>(command: ReindexCommand<C>): void {
  runMain(async () => {
    const userId = userOption(process.argv.slice(2), `Usage: ${command.invocation} [--user <user id>]`);
    const config = loadConfig(command.configSchema);
    const logger = createLogger(command.name, config.LOG_LEVEL);
    signInternalCalls(command.service, config.INTERNAL_AUTH_KEY);
    const print = (line: string) => process.stdout.write(`${line}\n`);
    try {
      print(await command.run({ config, logger, userId, print }));
    } catch (error) {
      // The stack goes to the log; the operator's terminal gets one line, and the exit code says it failed.
      logger.error({ err: error }, "reindex failed");
      process.stderr.write(`reindex failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  });
}
