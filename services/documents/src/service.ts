import { rm } from "node:fs/promises";
import { documents as api, indexing } from "@study/contracts";
import { prismaOptions } from "@study/db";
import { GrpcCourseDirectory, searchableSourceGrpcService } from "@study/grpc";
import type { ServiceDefinition } from "@study/runtime";
import { processScratchFolder, removeScratchOfStoppedProcesses, startInternalHttpServer } from "@study/storage";
import { ByteFormatDetector } from "./adapters/detection/byte-format-detector";
import { PrismaDocumentRepository } from "./adapters/db/prisma-document-repository";
import { createEmbeddingProvider } from "./adapters/embeddings/openai-embedding-provider";
import { startDomainEventsConsumer } from "./adapters/events/domain-events-consumer";
import { documentsGrpcService } from "./adapters/grpc/documents-grpc-service";
import { documentFileRoute } from "./adapters/http/file-route";
import { documentUploadRoute, syllabusUploadRoute } from "./adapters/http/upload-routes";
import { GrpcSyllabusCalendar } from "./adapters/calendar/grpc-syllabus-calendar";
import { DeleteCourseDocuments, DeleteDocument } from "./application/delete-document";
import { GetDocument, GetDocumentText } from "./application/get-document";
import { GetDocumentFile } from "./application/get-document-file";
import { ListDocuments } from "./application/list-documents";
import { ListSearchables } from "./application/list-searchables";
import { SearchDocuments } from "./application/search-documents";
import { PrismaDocumentSearch } from "./adapters/db/prisma-document-search";
import { UploadDocument } from "./application/upload-document";
import { UploadSyllabus } from "./application/upload-syllabus";
import { documentStorage, documentsConfigSchema, type DocumentsConfig } from "./config";
import { PrismaClient } from "./generated/prisma/client";
import { documentsMigrations } from "./migrations";
import { documentsWorkRoot, textReading } from "./text-reading";

/** The composition of the documents service: adapters → use cases → gRPC and the internal upload endpoint. */
export const documentsService: ServiceDefinition<PrismaClient, DocumentsConfig> = {
  ...documentsMigrations,
  configSchema: documentsConfigSchema,
  createDatabase: (_config, pool) => new PrismaClient(prismaOptions(pool)),
  async compose({ config, db, consumerLink, logger, lifecycle }) {
    const documents = new PrismaDocumentRepository(db);
    const storage = documentStorage(config);
    const embeddings = createEmbeddingProvider(config);
    const courses = new GrpcCourseDirectory(config.COURSES_GRPC_ADDRESS);
    lifecycle.onStop("courses client", async () => courses.close());

    await startDomainEventsConsumer({
      ...consumerLink,
      deleteCourseDocuments: new DeleteCourseDocuments(documents),
    });

    // The service reads syllabi itself (before answering): its own scratch folder, as a worker has.
    const workRoot = documentsWorkRoot(config);
    await removeScratchOfStoppedProcesses(workRoot, (folder) => logger.info({ folder }, "removed the temporary files of a stopped process"));
    const workDirectory = processScratchFolder(workRoot);
    lifecycle.onStop("scratch folder", () => rm(workDirectory, { recursive: true, force: true }));
    const calendar = new GrpcSyllabusCalendar(config.CALENDAR_GRPC_ADDRESS);
    lifecycle.onStop("calendar client", async () => calendar.close());
    const detector = new ByteFormatDetector();
    const uploadSyllabus = new UploadSyllabus({
      documents,
      courses,
      calendar,
      storage,
      ...textReading(config, workDirectory, embeddings, logger),
      timeoutMs: config.SYLLABUS_PROCESSING_TIMEOUT_MS,
    });

    if (config.INTERNAL_UPLOAD_SECRET) {
      const internalHttp = await startInternalHttpServer({
        host: config.INTERNAL_BIND_HOST,
        port: config.DOCUMENTS_HTTP_PORT,
        secret: config.INTERNAL_UPLOAD_SECRET,
        storage,
        logger,
        uploads: {
          "/uploads/documents": documentUploadRoute({
            maxBytes: config.DOCUMENTS_MAX_UPLOAD_BYTES,
            storage,
            detector,
            uploadDocument: new UploadDocument(documents, courses),
          }),
          "/uploads/syllabus": syllabusUploadRoute({ maxBytes: config.DOCUMENTS_MAX_UPLOAD_BYTES, storage, detector, uploadSyllabus }),
        },
        files: documentFileRoute({ storage, getDocumentFile: new GetDocumentFile(documents), logger }),
      });
      lifecycle.onStop("internal HTTP server", async () => {
        await internalHttp.close();
      });
      logger.info({ port: internalHttp.port }, "internal HTTP endpoint (uploads, files) listening");
    }

    const implementation = documentsGrpcService(
      {
        listDocuments: new ListDocuments(documents, courses),
        getDocument: new GetDocument(documents),
        getDocumentText: new GetDocumentText(documents),
        deleteDocument: new DeleteDocument(documents),
        searchDocuments: new SearchDocuments(new PrismaDocumentSearch(db), embeddings, courses),
      },
      logger,
    );
    return [
      { definition: api.DocumentsServiceService, implementation },
      { definition: indexing.SearchableSourceServiceService, implementation: searchableSourceGrpcService(new ListSearchables(documents), logger) },
    ];
  },
};
