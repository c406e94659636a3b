// `node services/chat/dist/reindex.js [--user <id>]` (npm run reindex:chat [-- --user <id>]): rebuilds the passages
// chat answers from, of one user or of everyone, from the notes (media) and documents (documents) they own.
import { prismaOptions } from "@study/db";
import { systemClock } from "@study/platform/clock";
import { perSecond, runReindexCommand } from "@study/runtime";
import { PrismaPassageStore } from "./adapters/db/prisma-passage-store";
import { GrpcDocumentSource } from "./adapters/sources/grpc-document-source";
import { GrpcNoteSource } from "./adapters/sources/grpc-note-source";
import { GrpcSourceCatalogue } from "./adapters/sources/grpc-source-catalogue";
import { IndexDocument, IndexNote } from "./application/index-material";
import { ReindexPassages, type ReindexProgress } from "./application/reindex-passages";
import { reindexConfigSchema } from "./config";
import { PrismaClient } from "./generated/prisma/client";

function progressLine(progress: ReindexProgress): string {
  const rate = perSecond(progress.listed, progress.sourceElapsedMs);
  const state = progress.done ? "done" : "…";
  return `${progress.sourceType}s: ${progress.listed} listed, ${progress.passages} passages, ${progress.empty} without text (${rate} items/s) ${state}`;
}

runReindexCommand({
  name: "chat-reindex",
  service: "chat",
  invocation: "node services/chat/dist/reindex.js",
  configSchema: reindexConfigSchema,
  async run({ config, userId, print }) {
    const db = new PrismaClient(prismaOptions(config.DATABASE_URL, 4));
    const catalogue = new GrpcSourceCatalogue({ media: config.MEDIA_GRPC_ADDRESS, documents: config.DOCUMENTS_GRPC_ADDRESS });
    const notes = new GrpcNoteSource(config.MEDIA_GRPC_ADDRESS);
    const documents = new GrpcDocumentSource(config.DOCUMENTS_GRPC_ADDRESS);
    try {
      const store = new PrismaPassageStore(db);
      print(`reindex of ${userId ? `user ${userId}` : "every user"} from media (notes) and documents`);
      const reindex = new ReindexPassages(catalogue, new IndexNote(notes, store), new IndexDocument(documents, store), store, systemClock);
      const report = await reindex.execute({ userId }, (progress) => print(progressLine(progress)));
      const seconds = (report.elapsedMs / 1000).toFixed(1);
      return (
        `reindex done: ${report.listed} listed, ${report.passages} passages, ${report.empty} without text, ${report.removed} removed ` +
        `in ${seconds} s (${perSecond(report.listed, report.elapsedMs)} items/s)`
      );
    } finally {
      catalogue.close();
      notes.close();
      documents.close();
      await db.$disconnect();
    }
  },
});
