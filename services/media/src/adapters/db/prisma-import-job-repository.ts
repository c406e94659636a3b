import { enqueueEvents, type EventEnvelope } from "@study/events";
import type {
  ImportJobRepository,
  JobNoteSummary,
  JobPage,
  JobQuery,
  JobTransition,
  JobView,
  JobWithNote,
} from "../../application/ports/import-job-repository.port";
import { FINISHED_STATUSES, JOB_STATUSES, type ImportJob, type JobStatus } from "../../domain/import-job";
import { nextVersion, type Note } from "../../domain/note";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import { notifyJobProgress } from "./job-progress-notifications";
import { jobStateData, lockNote, metadataFromJson, noteData, noteProcessingData, toJob, toNote, type ImportJobRow } from "./rows";

/** The note columns a job listing embeds. */
const NOTE_SUMMARY = {
  id: true,
  title: true,
  transcriptionStatus: true,
  courseId: true,
  summary: true,
  metadata: true,
  createdAt: true,
  updatedAt: true,
} as const satisfies Prisma.NoteSelect;

type NoteSummaryRow = Prisma.NoteGetPayload<{ select: typeof NOTE_SUMMARY }>;

function toNoteSummary(row: NoteSummaryRow): JobNoteSummary {
  const metadata = metadataFromJson(row.metadata);
  return {
    id: row.id,
    title: row.title,
    status: row.transcriptionStatus,
    courseId: row.courseId,
    duration: metadata.duration ?? null,
    fileSize: metadata.fileSize ?? null,
    mimeType: metadata.mimeType ?? null,
    summary: row.summary,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const toView = (row: ImportJobRow & { note: NoteSummaryRow | null }): JobView => {
  const { note, ...job } = row;
  return { job: toJob(job), note: note && toNoteSummary(note) };
};

function orderOf(query: JobQuery): Prisma.ImportJobOrderByWithRelationInput[] {
  const direction = query.sortOrder;
  if (query.sortBy === "completedAt") {
    // Jobs that never completed come last in either direction.
    return [{ completedAt: { sort: direction, nulls: "last" } }, { createdAt: direction }, { id: direction }];
  }
  return [{ [query.sortBy]: direction }, { id: direction }];
}

export class PrismaImportJobRepository implements ImportJobRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async createImport(note: Note, job: ImportJob, events: EventEnvelope[]): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      await tx.note.create({ data: noteData(note) });
      await tx.importJob.create({ data: job });
      await enqueueEvents(tx, events);
    });
  }

  async findOwned(userId: string, jobId: string): Promise<JobView | null> {
    const row = await this.prisma.importJob.findFirst({ where: { id: jobId, userId }, include: { note: { select: NOTE_SUMMARY } } });
    return row && toView(row);
  }

  async findWithNote(jobId: string): Promise<JobWithNote | null> {
    const row = await this.prisma.importJob.findUnique({ where: { id: jobId }, include: { note: true } });
    if (!row) return null;
    const { note, ...job } = row;
    return { job: toJob(job), note: note && toNote(note) };
  }

  async listOwned(userId: string, query: JobQuery): Promise<JobPage> {
    const where: Prisma.ImportJobWhereInput = {
      userId,
      ...(query.status ? { status: query.status } : {}),
      ...(query.source ? { source: query.source } : {}),
    };
    const [rows, total] = await Promise.all([
      this.prisma.importJob.findMany({
        where,
        orderBy: orderOf(query),
        take: query.limit,
        skip: query.offset,
        include: { note: { select: NOTE_SUMMARY } },
      }),
      this.prisma.importJob.count({ where }),
    ]);
    return { jobs: rows.map(toView), total };
  }

  async countByStatus(userId: string): Promise<Record<JobStatus, number>> {
    const groups = await this.prisma.importJob.groupBy({ by: ["status"], where: { userId }, _count: { _all: true } });
    const counts = Object.fromEntries(JOB_STATUSES.map((status) => [status, 0])) as Record<JobStatus, number>;
    for (const group of groups) counts[group.status] = group._count._all;
    return counts;
  }

  async saveTransition(transition: JobTransition, expectedVersion: number): Promise<boolean> {
    const { job, note, segments, events } = transition;
    return this.prisma.$transaction(async (tx) => {
      // Compare and set: the row lock taken here also orders this write before a concurrent note deletion.
      const { count } = await tx.importJob.updateMany({ where: { id: job.id, version: expectedVersion }, data: jobStateData(job) });
      if (count === 0) return false;
      await notifyJobProgress(tx, job);
      // The note as stored after the write: the user may have renamed it or edited its user notes meanwhile.
      const stored = note && (await lockNote(tx, note.id));
      if (note && stored) {
        const row = await tx.note.update({
          where: { id: note.id },
          data: { ...noteProcessingData(note), updatedAt: nextVersion(stored.updatedAt, note.updatedAt) },
        });
        if (segments) {
          await tx.transcriptSegment.deleteMany({ where: { noteId: note.id } });
          await tx.transcriptSegment.createMany({
            data: segments.map((segment, position) => ({ ...segment, noteId: note.id, position })),
          });
        }
        await enqueueEvents(tx, transition.noteEvents?.(toNote(row)) ?? []);
      }
      await enqueueEvents(tx, events);
      return true;
    });
  }

  async deleteFinished(userId: string, jobId: string, expectedVersion: number): Promise<boolean> {
    const { count } = await this.prisma.importJob.deleteMany({
      where: { id: jobId, userId, version: expectedVersion, status: { in: [...FINISHED_STATUSES] } },
    });
    return count > 0;
  }
}
