import { indexing, study as api } from "@study/contracts";
import { prismaOptions } from "@study/db";
import type { ServiceDefinition } from "@study/runtime";
import { PrismaFlashcardSetRepository } from "./adapters/db/prisma-flashcard-set-repository";
import { PrismaQuizRepository } from "./adapters/db/prisma-quiz-repository";
import { PrismaSourceNoteLinks } from "./adapters/db/prisma-source-note-links";
import { PrismaStudyGuideRepository } from "./adapters/db/prisma-study-guide-repository";
import { startDomainEventsConsumer } from "./adapters/events/domain-events-consumer";
import { ApkgFlashcardExporter } from "./adapters/export/apkg-flashcard-exporter";
import { CsvFlashcardExporter } from "./adapters/export/csv-flashcard-exporter";
import { createStudyMaterialGenerator } from "./adapters/generation/create-generator";
import { GrpcCourseDirectory, searchableSourceGrpcService } from "@study/grpc";
import { studyGrpcService } from "./adapters/grpc/study-grpc-service";
import { GrpcDocumentSource } from "./adapters/sources/grpc-document-source";
import { GrpcNoteSource } from "./adapters/sources/grpc-note-source";
import { ExportFlashcardSet } from "./application/export-flashcard-set";
import { FollowSourceNotes } from "./application/follow-source-notes";
import { GenerateFlashcards } from "./application/generate-flashcards";
import { GenerateQuiz } from "./application/generate-quiz";
import { GenerateStudyGuide } from "./application/generate-study-guide";
import { GenerationSources } from "./application/generation-sources";
import { ListDueCards } from "./application/list-due-cards";
import { ListSearchables } from "./application/list-searchables";
import { MaterialCatalog } from "./application/read-material";
import { ReviewCard } from "./application/review-card";
import { flashcardSetDeleted, quizDeleted, studyGuideDeleted } from "./application/study-events";
import { ListQuizAttempts, SubmitQuizAnswers } from "./application/submit-quiz-answers";
import { studyConfigSchema, type StudyConfig } from "./config";
import { PrismaClient } from "./generated/prisma/client";
import { studyMigrations } from "./migrations";

/**
 * The composition of the study service: adapters (with the clients of the owners a generation reads) → use cases →
 * gRPC and the note/document/course event consumer.
 */
export const studyService: ServiceDefinition<PrismaClient, StudyConfig> = {
  ...studyMigrations,
  configSchema: studyConfigSchema,
  createDatabase: (_config, pool) => new PrismaClient(prismaOptions(pool)),
  async compose({ config, db, consumerLink, logger, lifecycle }) {
    const sets = new PrismaFlashcardSetRepository(db);
    const quizzes = new PrismaQuizRepository(db);
    const guides = new PrismaStudyGuideRepository(db);
    const generator = createStudyMaterialGenerator(config, logger);
    logger.info({ generator: generator.name }, "study material generator");

    await startDomainEventsConsumer({
      ...consumerLink,
      followSourceNotes: new FollowSourceNotes(new PrismaSourceNoteLinks(db), { sets, quizzes, guides }),
    });

    // What a generation reads: the course from courses, notes from media, documents' text from documents.
    const courseSource = new GrpcCourseDirectory(config.COURSES_GRPC_ADDRESS);
    const noteSource = new GrpcNoteSource(config.MEDIA_GRPC_ADDRESS);
    const documentSource = new GrpcDocumentSource(config.DOCUMENTS_GRPC_ADDRESS);
    lifecycle.onStop("source clients", async () => {
      courseSource.close();
      noteSource.close();
      documentSource.close();
    });
    const sources = new GenerationSources({ courses: courseSource, notes: noteSource, documents: documentSource });

    const flashcardSets = new MaterialCatalog(sets, "Flashcard set", flashcardSetDeleted);
    const quizCatalog = new MaterialCatalog(quizzes, "Quiz", quizDeleted);
    const implementation = studyGrpcService(
      {
        generateFlashcards: new GenerateFlashcards(sets, generator, sources),
        generateQuiz: new GenerateQuiz(quizzes, generator, sources),
        generateStudyGuide: new GenerateStudyGuide(guides, generator, sources),
        flashcardSets,
        quizzes: quizCatalog,
        studyGuides: new MaterialCatalog(guides, "Study guide", studyGuideDeleted),
        listDueCards: new ListDueCards(sets),
        reviewCard: new ReviewCard(sets),
        exportFlashcardSet: new ExportFlashcardSet(flashcardSets, [new CsvFlashcardExporter(), new ApkgFlashcardExporter()]),
        submitQuizAnswers: new SubmitQuizAnswers(quizCatalog, quizzes),
        listQuizAttempts: new ListQuizAttempts(quizCatalog, quizzes),
      },
      logger,
    );
    return [
      { definition: api.StudyServiceService, implementation },
      {
        definition: indexing.SearchableSourceServiceService,
        implementation: searchableSourceGrpcService(new ListSearchables({ sets, quizzes, guides }), logger),
      },
    ];
  },
};
