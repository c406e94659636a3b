// `node services/search/dist/reindex.js [--user <id>]` (npm run reindex [-- --user <id>]): rebuilds the index of
// one user, or of everyone, from the owning services (see services/search/README.md).
import { prismaOptions } from "@study/db";
import { systemClock } from "@study/platform/clock";
import { perSecond, runReindexCommand } from "@study/runtime";
import { PrismaIndexLedger } from "./adapters/db/prisma-index-ledger";
import { GrpcSearchableSources } from "./adapters/sources/grpc-searchable-sources";
import { Reindex, type ReindexProgress } from "./application/reindex";
import { reindexConfigSchema, sourceAddresses } from "./config";
import { PrismaClient } from "./generated/prisma/client";
import { openSearchIndex } from "./search-index";

function progressLine(progress: ReindexProgress): string {
  const rate = perSecond(progress.listed, progress.sourceElapsedMs);
  const state = progress.done ? "done" : "…";
  return `${progress.source}: ${progress.listed} listed, ${progress.applied} indexed, ${progress.skipped} skipped (${rate} items/s) ${state}`;
}

runReindexCommand({
  name: "search-reindex",
  service: "search",
  invocation: "node services/search/dist/reindex.js",
  configSchema: reindexConfigSchema,
  async run({ config, logger, userId, print }) {
    const db = new PrismaClient(prismaOptions(config.DATABASE_URL, 4));
    const sources = new GrpcSearchableSources(sourceAddresses(config), logger);
    try {
      const index = await openSearchIndex(config, db, logger);
      print(`reindex of ${userId ? `user ${userId}` : "every user"} from ${sources.sources.map((s) => s.name).join(", ")}`);
      const report = await new Reindex(new PrismaIndexLedger(db), index, sources, systemClock).execute({ userId }, (progress) =>
        print(progressLine(progress)),
      );
      const seconds = (report.elapsedMs / 1000).toFixed(1);
      return (
        `reindex done: ${report.listed} listed, ${report.applied} indexed, ${report.skipped} skipped, ${report.removed} removed ` +
        `in ${seconds} s (${perSecond(report.listed, report.elapsedMs)} items/s)`
      );
    } finally {
      sources.close();
      await db.$disconnect();
    }
  },
});
