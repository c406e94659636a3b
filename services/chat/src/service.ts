import { openAiClientFromConfig } from "@study/ai";
import { chat as api, indexing } from "@study/contracts";
import { prismaOptions } from "@study/db";
import { systemClock } from "@study/platform/clock";
import type { ServiceDefinition } from "@study/runtime";
import { PrismaChatRepository } from "./adapters/db/prisma-chat-repository";
import { PrismaPassageIndex } from "./adapters/db/prisma-passage-index";
import { PrismaPassageStore } from "./adapters/db/prisma-passage-store";
import { OfflineAnswerEngine } from "./adapters/engines/offline-answer-engine";
import { OpenAiAnswerEngine } from "./adapters/engines/openai-answer-engine";
import { startDomainEventsConsumer } from "./adapters/events/domain-events-consumer";
import { chatGrpcService } from "./adapters/grpc/chat-grpc-service";
import { searchableSourceGrpcService } from "@study/grpc";
import { GrpcDocumentSource } from "./adapters/sources/grpc-document-source";
import { GrpcNoteSource } from "./adapters/sources/grpc-note-source";
import { GrpcOwnershipCheck } from "./adapters/sources/grpc-ownership-check";
import { Ask } from "./application/ask";
import { ForgetCourse, ForgetSource, IndexDocument, IndexNote } from "./application/index-material";
import { ListSearchables } from "./application/list-searchables";
import type { AnswerEngine } from "./application/ports/chat-ports.port";
import { CreateSession, DeleteSession, GetSession, ListSessions, RenameSession } from "./application/sessions";
import { chatConfigSchema, type ChatConfig } from "./config";
import { PrismaClient } from "./generated/prisma/client";
import { chatMigrations } from "./migrations";

/** The model when OPENAI_API_KEY is set, else the offline engine that quotes the material (as the generators do). */
export function createAnswerEngine(config: ChatConfig): AnswerEngine {
  const client = openAiClientFromConfig(config);
  return client ? new OpenAiAnswerEngine(client, config.OPENAI_MODEL) : new OfflineAnswerEngine();
}

/** The composition of the chat service: Prisma, the passage index, the answer engine → use cases → gRPC and events. */
export const chatService: ServiceDefinition<PrismaClient, ChatConfig> = {
  ...chatMigrations,
  configSchema: chatConfigSchema,
  createDatabase: (_config, pool) => new PrismaClient(prismaOptions(pool)),
  async compose({ config, db, consumerLink, logger, lifecycle }) {
    const clock = systemClock;
    const chats = new PrismaChatRepository(db);
    const engine = createAnswerEngine(config);
    logger.info({ engine: engine.name }, "answer engine");

    // The material: notes from media, documents' text, course names and ownership from courses.
    const notes = new GrpcNoteSource(config.MEDIA_GRPC_ADDRESS);
    const documentTexts = new GrpcDocumentSource(config.DOCUMENTS_GRPC_ADDRESS);
    const ownership = new GrpcOwnershipCheck({
      courses: config.COURSES_GRPC_ADDRESS,
      media: config.MEDIA_GRPC_ADDRESS,
      documents: config.DOCUMENTS_GRPC_ADDRESS,
    });
    lifecycle.onStop("material clients", async () => {
      notes.close();
      documentTexts.close();
      ownership.close();
    });
    const passages = new PrismaPassageStore(db);
    await startDomainEventsConsumer({
      ...consumerLink,
      indexNote: new IndexNote(notes, passages),
      indexDocument: new IndexDocument(documentTexts, passages),
      forgetSource: new ForgetSource(passages),
      forgetCourse: new ForgetCourse(passages),
    });

    const implementation = chatGrpcService(
      {
        createSession: new CreateSession(chats, ownership, clock),
        listSessions: new ListSessions(chats),
        getSession: new GetSession(chats),
        renameSession: new RenameSession(chats, clock),
        deleteSession: new DeleteSession(chats),
        ask: new Ask({
          chats,
          index: new PrismaPassageIndex(db),
          engine,
          clock,
          settings: {
            questionsPerHour: config.CHAT_QUESTIONS_PER_HOUR,
            passages: config.CHAT_PASSAGES,
            historyMessages: config.CHAT_HISTORY_MESSAGES,
          },
        }),
      },
      logger,
    );
    return [
      { definition: api.ChatServiceService, implementation },
      { definition: indexing.SearchableSourceServiceService, implementation: searchableSourceGrpcService(new ListSearchables(chats), logger) },
    ];
  },
};
