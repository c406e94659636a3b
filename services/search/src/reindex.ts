// `node services/search/dist/reindex.js [--user <id>]` (npm run reindex [-- --user <id>]): rebuilds the index of
// one user, or of everyone, from the owning services (see the README, "Search").
import { parseArgs } from "node:util";
import { prismaOptions } from "@study/db";
import { ConfigError, createLogger, loadConfig, runMain } from "@study/platform";
import { systemClock } from "@study/platform/clock";
import { PrismaIndexLedger } from "./adapters/db/prisma-index-ledger";
import { GrpcSearchableSources } from "./adapters/sources/grpc-searchable-sources";
import { Reindex, type ReindexProgress } from "./application/reindex";
import { reindexConfigSchema, sourceAddresses } from "./config";
import { PrismaClient } from "./generated/prisma/client";
import { openSearchIndex } from "./search-index";

const USAGE = "Usage: node services/search/dist/reindex.js [--user <user id>]";

function userOption(argv: string[]): string | undefined {
  try {
    const { values } = parseArgs({ args: argv, options: { user: { type: "string" } }, strict: true, allowPositionals: false });
    if (values.user !== undefined && values.user.trim() === "") throw new Error("--user needs a user id");
    return values.user?.trim();
  } catch (error) {
    throw new ConfigError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
}

const perSecond = (items: number, ms: number) => (ms > 0 ? Math.round((items * 1000) / ms) : items);

function progressLine(progress: ReindexProgress): string {
  const rate = perSecond(progress.listed, progress.sourceElapsedMs);
  const state = progress.done ? "done" : "…";
  return `${progress.source}: ${progress.listed} listed, ${progress.applied} indexed, ${progress.skipped} skipped (${rate} items/s) ${state}`;
}

runMain(async () => {
  const userId = userOption(process.argv.slice(2));
  const config = loadConfig(reindexConfigSchema);
  const logger = createLogger("search-reindex", config.LOG_LEVEL);
  const db = new PrismaClient(prismaOptions(config.DATABASE_URL, 4));
  const sources = new GrpcSearchableSources(sourceAddresses(config), logger);
  try {
    const index = await openSearchIndex(config, db, logger);
    process.stdout.write(`reindex of ${userId ? `user ${userId}` : "every user"} from ${sources.sources.map((s) => s.name).join(", ")}\n`);
    const report = await new Reindex(new PrismaIndexLedger(db), index, sources, systemClock).execute({ userId }, (progress) =>
      process.stdout.write(`${progressLine(progress)}\n`),
    );
    const seconds = (report.elapsedMs / 1000).toFixed(1);
    process.stdout.write(
      `reindex done: ${report.listed} listed, ${report.applied} indexed, ${report.skipped} skipped, ${report.removed} removed ` +
        `in ${seconds} s (${perSecond(report.listed, report.elapsedMs)} items/s)\n`,
    );
  } catch (error) {
    // The stack goes to the log; the operator's terminal gets one line, and the exit code says it failed.
    logger.error({ err: error }, "reindex failed");
    process.stderr.write(`reindex failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  } finally {
    sources.close();
    await db.$disconnect();
  }
});
