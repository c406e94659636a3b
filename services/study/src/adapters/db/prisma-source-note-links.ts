import type { SourceNoteLinks } from "../../application/ports/study-repositories.port";
import type { PrismaClient } from "../../generated/prisma/client";

const MATERIAL_TABLES = ["flashcard_set", "quiz", "study_guide"] as const;
const PART_TABLES = [
  { table: "flashcard", parent: "flashcard_set", key: "flashcard_set_id" },
  { table: "question", parent: "quiz", key: "quiz_id" },
  { table: "study_section", parent: "study_guide", key: "study_guide_id" },
] as const;

/** Note links across the three kinds of material, in one transaction each (plain SQL: array updates). */
export class PrismaSourceNoteLinks implements SourceNoteLinks {
  constructor(private readonly prisma: PrismaClient) {}

  async detachNote(userId: string, noteId: string): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      for (const { table, parent, key } of PART_TABLES) {
        await tx.$executeRawUnsafe(
          `UPDATE ${table} SET source_note_id = NULL
             WHERE source_note_id = $2 AND ${key} IN (SELECT id FROM ${parent} WHERE user_id = $1 AND $2 = ANY(note_ids))`,
          userId,
          noteId,
        );
      }
      for (const table of MATERIAL_TABLES) {
        await tx.$executeRawUnsafe(
          `UPDATE ${table}
              SET note_ids = array_remove(note_ids, $2),
                  note_id = CASE WHEN note_id = $2 THEN NULL ELSE note_id END,
                  note_title = CASE WHEN note_id = $2 THEN NULL ELSE note_title END,
                  updated_at = now()
            WHERE user_id = $1 AND $2 = ANY(note_ids)`,
          userId,
          noteId,
        );
      }
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
