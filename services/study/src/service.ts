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
import { searchableSourceGrpcService } from "@study/grpc";
import { studyGrpcService } from "./adapters/grpc/study-grpc-service";
import { ExportFlashcardSet } from "./application/export-flashcard-set";
import { FollowSourceNotes } from "./application/follow-source-notes";
import { GenerateFlashcards } from "./application/generate-flashcards";
import { GenerateQuiz } from "./application/generate-quiz";
import { GenerateStudyGuide } from "./application/generate-study-guide";
import { ListDueCards } from "./application/list-due-cards";
import { ListSearchables } from "./application/list-searchables";
import { MaterialCatalog } from "./application/read-material";
import { ReviewCard } from "./application/review-card";
import { flashcardSetDeleted, quizDeleted, studyGuideDeleted } from "./application/study-events";
import { ListQuizAttempts, SubmitQuizAnswers } from "./application/submit-quiz-answers";
import { studyConfigSchema, type StudyConfig } from "./config";
import { PrismaClient } from "./generated/prisma/client";
import { studyMigrations } from "./migrations";

/** The composition of the study service: adapters → use cases → gRPC and the note/document/course event consumer. */
export const studyService: ServiceDefinition<PrismaClient, StudyConfig> = {
  ...studyMigrations,
  configSchema: studyConfigSchema,
  createDatabase: (_config, pool) => new PrismaClient(prismaOptions(pool)),
  async compose({ config, db, consumerLink, logger }) {
    const sets = new PrismaFlashcardSetRepository(db);
    const quizzes = new PrismaQuizRepository(db);
    const guides = new PrismaStudyGuideRepository(db);
    const generator = createStudyMaterialGenerator(config, logger);
    logger.info({ generator: generator.name }, "study material generator");

    await startDomainEventsConsumer({
      ...consumerLink,
      followSourceNotes: new FollowSourceNotes(new PrismaSourceNoteLinks(db), { sets, quizzes, guides }),
    });

    const flashcardSets = new MaterialCatalog(sets, "Flashcard set", flashcardSetDeleted);
    const quizCatalog = new MaterialCatalog(quizzes, "Quiz", quizDeleted);
    const implementation = studyGrpcService(
      {
        generateFlashcards: new GenerateFlashcards(sets, generator),
        generateQuiz: new GenerateQuiz(quizzes, generator),
        generateStudyGuide: new GenerateStudyGuide(guides, generator),
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
