import { enqueueEvents } from "@study/events";
import type { MaterialChangeEvents, SourceNoteLinks } from "../../application/ports/study-repositories.port";
import type { PrismaClient } from "../../generated/prisma/client";
import { setFromRow, withCards } from "./prisma-flashcard-set-repository";
import { quizFromRow, withQuestions } from "./prisma-quiz-repository";
import { guideFromRow, withSections } from "./prisma-study-guide-repository";

const MATERIAL_TABLES = ["flashcard_set", "quiz", "study_guide"] as const;
const PART_TABLES = [
  { table: "flashcard", parent: "flashcard_set", key: "flashcard_set_id" },
  { table: "question", parent: "quiz", key: "quiz_id" },
  { table: "study_section", parent: "study_guide", key: "study_guide_id" },
] as const;

/** How one kind of source is recorded: its ids on the material, and an item's link to one of them. */
interface SourceColumns {
  /** The material's array of source ids. */
  ids: string;
  /** The item's source id column. */
  itemLink: string;
  /** The SET list that drops an item's link. */
  clearItemLink: string;
  /** More of the material's SET list (each assignment ending in a comma). */
  clearMaterial: string;
}

const NOTE_SOURCE: SourceColumns = {
  ids: "note_ids",
  itemLink: "source_note_id",
  // The start time stays: without its note it reads as no link (sourceFromColumns).
  clearItemLink: "source_note_id = NULL",
  // The material's first note, when it is this one.
  clearMaterial: `note_id = CASE WHEN note_id = $2 THEN NULL ELSE note_id END,
                  note_title = CASE WHEN note_id = $2 THEN NULL ELSE note_title END,`,
};

const DOCUMENT_SOURCE: SourceColumns = {
  ids: "document_ids",
  itemLink: "source_document_id",
  clearItemLink: "source_document_id = NULL, source_page = NULL",
  clearMaterial: "",
};

/** Source links across the three kinds of material, in one transaction each (plain SQL: array updates). */
export class PrismaSourceNoteLinks implements SourceNoteLinks {
  constructor(private readonly prisma: PrismaClient) {}

  detachNote(userId: string, noteId: string, events: MaterialChangeEvents): Promise<void> {
    return this.detach(userId, noteId, NOTE_SOURCE, events);
  }

  detachDocument(userId: string, documentId: string, events: MaterialChangeEvents): Promise<void> {
    return this.detach(userId, documentId, DOCUMENT_SOURCE, events);
  }

  /**
   * Items first: they are found through their material still naming the source. Then each material naming it is
   * updated (its updatedAt moves), read back as it now is, and announced by `events` in the same transaction.
   */
  private async detach(userId: string, sourceId: string, source: SourceColumns, events: MaterialChangeEvents): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      for (const { table, parent, key } of PART_TABLES) {
        await tx.$executeRawUnsafe(
          `UPDATE ${table} SET ${source.clearItemLink}
             WHERE ${source.itemLink} = $2 AND ${key} IN (SELECT id FROM ${parent} WHERE user_id = $1 AND $2 = ANY(${source.ids}))`,
          userId,
          sourceId,
        );
      }
      const changed: Record<(typeof MATERIAL_TABLES)[number], string[]> = { flashcard_set: [], quiz: [], study_guide: [] };
      for (const table of MATERIAL_TABLES) {
        const rows = await tx.$queryRawUnsafe<{ id: string }[]>(
          `UPDATE ${table}
              SET ${source.ids} = array_remove(${source.ids}, $2),
                  ${source.clearMaterial}
                  updated_at = now()
            WHERE user_id = $1 AND $2 = ANY(${source.ids})
        RETURNING id::text AS id`,
          userId,
          sourceId,
        );
        changed[table] = rows.map((row) => row.id);
      }
      // One after the other: an interactive transaction's queries share its one connection.
      const sets =
        changed.flashcard_set.length > 0 ? await tx.flashcardSet.findMany({ where: { id: { in: changed.flashcard_set } }, include: withCards }) : [];
      const quizzes = changed.quiz.length > 0 ? await tx.quiz.findMany({ where: { id: { in: changed.quiz } }, include: withQuestions }) : [];
      const guides =
        changed.study_guide.length > 0 ? await tx.studyGuide.findMany({ where: { id: { in: changed.study_guide } }, include: withSections }) : [];
      await enqueueEvents(tx, [
        ...sets.map(setFromRow).flatMap((set) => events.flashcardSet(set)),
        ...quizzes.map(quizFromRow).flatMap((quiz) => events.quiz(quiz)),
        ...guides.map(guideFromRow).flatMap((guide) => events.studyGuide(guide)),
      ]);
    });
  }

  async renameNote(userId: string, noteId: string, title: string): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      for (const table of MATERIAL_TABLES) {
        await tx.$executeRawUnsafe(
          `UPDATE ${table} SET note_title = $3 WHERE user_id = $1 AND note_id = $2 AND note_title IS DISTINCT FROM $3`,
          userId,
          noteId,
          title,
        );
      }
    });
  }
}
