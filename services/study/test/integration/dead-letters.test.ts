import { randomUUID } from "node:crypto";
import { prismaOptions } from "@study/db";
import { createEvent } from "@study/events";
import { migrationSources } from "@study/runtime";
import { createTestDatabase, expectedDrillOutcome, refuseWrites, runDeadLetterDrill, uniqueSuffix, untouchedUntilRepair } from "@study/testkit";
import { PrismaFlashcardSetRepository } from "../../src/adapters/db/prisma-flashcard-set-repository";
import { PrismaQuizRepository } from "../../src/adapters/db/prisma-quiz-repository";
import { PrismaSourceNoteLinks } from "../../src/adapters/db/prisma-source-note-links";
import { PrismaStudyGuideRepository } from "../../src/adapters/db/prisma-study-guide-repository";
import { CONSUMER_NAME, startDomainEventsConsumer } from "../../src/adapters/events/domain-events-consumer";
import { FollowSourceNotes } from "../../src/application/follow-source-notes";
import { PrismaClient } from "../../src/generated/prisma/client";
import { studyMigrations } from "../../src/migrations";

/** The dead-letter runbook (docs/operations.md), done on the study consumer (see runDeadLetterDrill). */
describe("study consumer: dead letters and replay", () => {
  let db: PrismaClient;

  beforeAll(async () => {
    db = new PrismaClient(prismaOptions(await createTestDatabase("study_dlq", migrationSources(studyMigrations)), 4));
  });
  afterAll(async () => {
    await db?.$disconnect();
  });

  it("dead-letters a course deletion the database refuses, comes back when replayed unrepaired, and deletes the material once after the repair", async () => {
    const userId = `user-${uniqueSuffix()}`;
    const courseId = randomUUID();
    for (const title of ["Enzymes", "Membranes"]) {
      await db.flashcardSet.create({
        data: { id: randomUUID(), userId, courseId, noteIds: [], contentHash: randomUUID(), title, difficulty: "MEDIUM", generator: "offline" },
      });
    }
    const event = createEvent("courses", userId, { $case: "courseDeleted", value: { courseId, name: "Biochemistry" } });

    const drill = await runDeadLetterDrill({
      consumer: CONSUMER_NAME,
      db,
      event,
      start: (settings) =>
        startDomainEventsConsumer({
          ...settings,
          db,
          followSourceNotes: new FollowSourceNotes(new PrismaSourceNoteLinks(db), {
            sets: new PrismaFlashcardSetRepository(db),
            quizzes: new PrismaQuizRepository(db),
            guides: new PrismaStudyGuideRepository(db),
          }),
        }),
      breakCause: () => refuseWrites(db, "flashcard_set", { operations: ["DELETE"], message: "flashcard_set is read-only (drill)" }),
      observe: async () => ({
        sets: await db.flashcardSet.count({ where: { userId, courseId } }),
        setDeletedEvents: (
          await db.$queryRawUnsafe<{ count: number }[]>(
            "SELECT count(*)::int AS count FROM outbox_message WHERE type = 'study.flashcard_set.deleted.v1'",
          )
        )[0].count,
      }),
    });

    const untouched = { sets: 2, setDeletedEvents: 0 };
    // One FlashcardSetDeleted per set: the deletion ran once, and the duplicate found the inbox row.
    const deletedOnce = { sets: 0, setDeletedEvents: 2 };
    expect(drill).toEqual(
      expectedDrillOutcome({
        event,
        type: "courses.course.deleted.v1",
        attempts: 5,
        lastError: expect.stringContaining("flashcard_set is read-only (drill)"),
        states: untouchedUntilRepair(untouched, deletedOnce),
      }),
    );
  });
});
