import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@study/platform";
import { LocalScratchSpace } from "@study/storage";
import type { EmbeddingProvider } from "./application/ports/embedding-provider.port";
import { createTextExtractor } from "./adapters/extraction/text-extractor";
import { prepareChunksOrKeywordOnly } from "./application/prepare-chunks";
import type { ProcessDocumentDependencies } from "./application/process-document";
import { extractionLimits, type DocumentsConfig, type WorkerConfig } from "./config";

/** Where the worker's and the service's per-process scratch folders live. */
export const documentsWorkRoot = (config: Pick<DocumentsConfig | WorkerConfig, "DOCUMENTS_WORK_DIR">): string =>
  config.DOCUMENTS_WORK_DIR ?? join(tmpdir(), "study-documents-work");

/**
 * What reading a file's text takes, composed once for the worker's ProcessDocument and the service's UploadSyllabus
 * (a syllabus is read before its upload is answered): a scratch folder, the extractor, the passages (keyword-only
 * when the embedding provider fails) and the limits.
 */
export function textReading(
  config: DocumentsConfig | WorkerConfig,
  workDirectory: string,
  embeddings: EmbeddingProvider | null,
  logger: Logger,
): Pick<ProcessDocumentDependencies, "scratch" | "extractor" | "prepareChunks" | "limits" | "logger"> {
  return {
    scratch: new LocalScratchSpace(workDirectory),
    extractor: createTextExtractor({ temporaryDirectory: workDirectory }),
    prepareChunks: (pages, signal) => prepareChunksOrKeywordOnly(pages, embeddings, logger, signal),
    limits: extractionLimits(config),
    logger,
  };
}
