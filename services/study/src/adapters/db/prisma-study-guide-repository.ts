import { enqueueEvents, type EventEnvelope } from "@study/events";
import { isUuid } from "@study/platform";
import type { MaterialFilter, StudyGuideRepository } from "../../application/ports/study-repositories.port";
import type { StudyGuide } from "../../domain/study-guide";
import { z } from "zod";
import type { Prisma, PrismaClient } from "../../generated/prisma/client";
import { materialWhere, NEWEST_FIRST, pageAfterWhere, originColumns, sourceColumns, sourceFromColumns } from "./material-rows";

export const withSections = { sections: { orderBy: { order: "asc" as const } } };
/** The JSON column `study_section.subsections`, checked when read back. */
const storedSubsections = z.array(z.object({ title: z.string(), content: z.string() }));

type GuideRow = Prisma.StudyGuideGetPayload<{ include: typeof withSections }>;

export const guideFromRow = ({ sections, ...row }: GuideRow): StudyGuide => ({
  ...row,
  sections: sections.map((section) => ({
    id: section.id,
    studyGuideId: section.studyGuideId,
    title: section.title,
    content: section.content,
    order: section.order,
    subsections: storedSubsections.parse(section.subsections),
    source: sourceFromColumns(section),
  })),
});

export class PrismaStudyGuideRepository implements StudyGuideRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async findByFingerprint(userId: string, courseId: string, contentHash: string): Promise<StudyGuide | null> {
    const row = await this.prisma.studyGuide.findUnique({
      where: { userId_courseId_contentHash: { userId, courseId, contentHash } },
      include: withSections,
    });
    return row && guideFromRow(row);
  }

  async insertUnlessDuplicate(guide: StudyGuide, events: EventEnvelope[]): Promise<{ material: StudyGuide; created: boolean }> {
    const created = await this.prisma.$transaction(async (tx) => {
      const { count } = await tx.studyGuide.createMany({
        data: [
          {
            ...originColumns(guide),
            markdown: guide.markdown,
            overview: guide.overview,
            keyTerms: guide.keyTerms,
            learningObjectives: guide.learningObjectives,
            studyTips: guide.studyTips,
          },
        ],
        skipDuplicates: true,
      });
      if (count === 0) return false;
      await tx.studySection.createMany({
        data: guide.sections.map((section) => ({
          id: section.id,
          studyGuideId: guide.id,
          title: section.title,
          content: section.content,
          order: section.order,
          subsections: section.subsections.map((subsection) => ({ ...subsection })),
          ...sourceColumns(section.source),
        })),
      });
      await enqueueEvents(tx, events);
      return true;
    });
    if (created) return { material: guide, created };
    const existing = await this.findByFingerprint(guide.userId, guide.courseId, guide.contentHash);
    if (!existing) throw new Error("study guide insert conflicted with a row that is gone");
    return { material: existing, created };
  }

  async findOwned(userId: string, id: string): Promise<StudyGuide | null> {
    if (!isUuid(id)) return null;
    const row = await this.prisma.studyGuide.findFirst({ where: { id, userId }, include: withSections });
    return row && guideFromRow(row);
  }

  async listOwned(userId: string, filter: MaterialFilter, limit?: number): Promise<StudyGuide[]> {
    const rows = await this.prisma.studyGuide.findMany({
      where: materialWhere(userId, filter),
      include: withSections,
      orderBy: NEWEST_FIRST,
      take: limit,
    });
    return rows.map(guideFromRow);
  }

  async deleteOwned(userId: string, id: string, events: (guide: StudyGuide) => EventEnvelope[]): Promise<boolean> {
    if (!isUuid(id)) return false;
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.studyGuide.findFirst({ where: { id, userId }, include: withSections });
      if (!row) return false;
      await tx.studyGuide.delete({ where: { id } });
      await enqueueEvents(tx, events(guideFromRow(row)));
      return true;
    });
  }

  async listPageAfter(query: { userId?: string; afterId: string | null; limit: number }): Promise<StudyGuide[]> {
    const rows = await this.prisma.studyGuide.findMany({
      where: pageAfterWhere(query),
      include: withSections,
      orderBy: { id: "asc" },
      take: query.limit,
    });
    return rows.map(guideFromRow);
  }

  async deleteCourse(userId: string, courseId: string, events: (guide: StudyGuide) => EventEnvelope[]): Promise<StudyGuide[]> {
    return this.prisma.$transaction(async (tx) => {
      const rows = await tx.studyGuide.findMany({ where: { userId, courseId }, include: withSections });
      if (rows.length === 0) return [];
      await tx.studyGuide.deleteMany({ where: { id: { in: rows.map((row) => row.id) } } });
      const guides = rows.map(guideFromRow);
      await enqueueEvents(tx, guides.flatMap(events));
      return guides;
    });
  }
}
