import { enqueueEvents, type EventEnvelope } from "@study/events";
import type { EditableNoteField, NoteDeletion, NoteDeletionPlan, NotePage, NoteRepository } from "../../application/ports/note-repository.port";
import { ACTIVE_STATUSES } from "../../domain/import-job";
import {
  attachmentFileOf,
  audioFileOf,
  nextVersion,
  storageKeysOf,
  type Attachment,
  type Note,
  type NoteDetails,
  type NoteFile,
} from "../../domain/note";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import { notifyJobProgress } from "./job-progress-notifications";
import { jobStateData, lockNote, toAttachment, toJob, toNote, toSegment, userNotesToJson } from "./rows";

const NEWEST_FIRST = [{ createdAt: "desc" }, { id: "desc" }] as const satisfies Prisma.NoteOrderByWithRelationInput[];

export class PrismaNoteRepository implements NoteRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async listOwned(userId: string, query: { courseId?: string; limit: number; offset: number }): Promise<NotePage> {
    const where: Prisma.NoteWhereInput = { userId, ...(query.courseId ? { courseId: query.courseId } : {}) };
    const [rows, total] = await Promise.all([
      this.prisma.note.findMany({ where, orderBy: [...NEWEST_FIRST], take: query.limit, skip: query.offset }),
      this.prisma.note.count({ where }),
    ]);
    return { notes: rows.map(toNote), total };
  }

  async findOwned(userId: string, noteId: string): Promise<Note | null> {
    const row = await this.prisma.note.findFirst({ where: { id: noteId, userId } });
    return row && toNote(row);
  }

  async findOwnedDetails(userId: string, noteId: string): Promise<NoteDetails | null> {
    const row = await this.prisma.note.findFirst({
      where: { id: noteId, userId },
      include: { segments: { orderBy: { position: "asc" } }, attachments: { orderBy: [{ uploadedAt: "asc" }, { id: "asc" }] } },
    });
    if (!row) return null;
    const { segments, attachments, ...note } = row;
    return { ...toNote(note), segments: segments.map(toSegment), attachments: attachments.map(toAttachment) };
  }

  async saveEdits(note: Note, events: (saved: Note) => EventEnvelope[], fields: readonly EditableNoteField[]): Promise<Note | null> {
    return this.prisma.$transaction(async (tx) => {
      const stored = await lockNote(tx, note.id, note.userId);
      if (!stored) return null;
      const row = await tx.note.update({
        where: { id: note.id },
        data: {
          ...(fields.includes("title") ? { title: note.title } : {}),
          ...(fields.includes("userNotes") ? { userNotes: userNotesToJson(note.userNotes) } : {}),
          updatedAt: nextVersion(stored.updatedAt, note.updatedAt),
        },
      });
      const saved = toNote(row);
      await enqueueEvents(tx, events(saved));
      return saved;
    });
  }

  async addAttachment(userId: string, attachment: Attachment): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const stored = await lockNote(tx, attachment.noteId, userId);
      if (!stored) return false;
      await tx.attachment.create({ data: attachment });
      // Never back in time: updatedAt is the version search keeps of the note.
      await tx.note.update({ where: { id: attachment.noteId }, data: { updatedAt: nextVersion(stored.updatedAt, attachment.uploadedAt) } });
      return true;
    });
  }

  async deleteOwned(userId: string, noteId: string, plan: (deletion: NoteDeletion) => NoteDeletionPlan): Promise<NoteDeletion | null> {
    return this.prisma.$transaction(async (tx) => {
      // Lock order job → note, as in every job transition, so that the two never wait for each other.
      await tx.$queryRaw`SELECT id FROM import_job WHERE note_id = ${noteId}::uuid AND user_id = ${userId} FOR UPDATE`;
      const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM note WHERE id = ${noteId}::uuid AND user_id = ${userId} FOR UPDATE`;
      if (locked.length === 0) return null;
      const row = await tx.note.findUniqueOrThrow({ where: { id: noteId }, include: { attachments: { select: { storageKey: true } }, jobs: true } });
      const { attachments, jobs, ...noteRow } = row;
      const note = toNote(noteRow);
      const deletion: NoteDeletion = {
        note,
        storageKeys: storageKeysOf(
          note,
          attachments,
          jobs.map((job) => job.storageKey),
        ),
        activeJobs: jobs.filter((job) => ACTIVE_STATUSES.includes(job.status)).map(toJob),
      };
      const decision = plan(deletion);
      for (const job of decision.jobs) {
        const { count } = await tx.importJob.updateMany({ where: { id: job.id, version: job.version - 1 }, data: jobStateData(job) });
        if (count > 0) await notifyJobProgress(tx, job);
      }
      // Segments and attachments go with the note (ON DELETE CASCADE); its jobs stay, without the note.
      await tx.note.delete({ where: { id: noteId } });
      await enqueueEvents(tx, decision.events);
      return deletion;
    });
  }

  async findOwnedFile(userId: string, storageKey: string): Promise<NoteFile | null> {
    const note = await this.prisma.note.findFirst({ where: { userId, audioStorageKey: storageKey } });
    if (note) return audioFileOf(toNote(note));
    const attachment = await this.prisma.attachment.findFirst({ where: { storageKey, note: { userId } } });
    return attachment && attachmentFileOf(attachment);
  }

  async recordContentHash(userId: string, noteId: string, contentHash: string): Promise<string | null> {
    return this.prisma.$transaction(async (tx) => {
      await tx.note.updateMany({ where: { id: noteId, userId }, data: { contentHash } });
      const earlier = await tx.note.findFirst({
        where: { userId, contentHash, id: { not: noteId } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { id: true },
      });
      return earlier?.id ?? null;
    });
  }

  async listIdsOfCourse(userId: string, courseId: string): Promise<string[]> {
    const rows = await this.prisma.note.findMany({ where: { userId, courseId }, select: { id: true }, orderBy: { createdAt: "asc" } });
    return rows.map((row) => row.id);
  }

  async listPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<Note[]> {
    const rows = await this.prisma.note.findMany({
      where: { ...(query.userId === undefined ? {} : { userId: query.userId }), ...(query.afterId === null ? {} : { id: { gt: query.afterId } }) },
      orderBy: { id: "asc" },
      take: query.limit,
    });
    return rows.map(toNote);
  }
}
