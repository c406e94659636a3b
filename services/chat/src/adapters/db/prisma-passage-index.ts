import type { PassageIndex, RetrievalScope } from "../../application/ports/chat-ports.port";
import type { Passage, PassageKind, SourceType } from "../../domain/passage";
import type { PrismaClient } from "../../generated/prisma/client";

/**
 * Retrieval over the service's own passages with PostgreSQL full text: any of the question's words may match
 * (a question rarely repeats every word of its answer), ranked by cover density. Always within the user's passages
 * of one course (and the session's scope): another user's passage cannot be returned by construction.
 */
export class PrismaPassageIndex implements PassageIndex {
  constructor(private readonly prisma: PrismaClient) {}

  async retrieve(scope: RetrievalScope, query: string, limit: number): Promise<Passage[]> {
    const sources = [...scope.noteIds, ...scope.documentIds];
    const rows = await this.prisma.$queryRaw<PassageRow[]>`
      WITH q AS (SELECT NULLIF(replace(plainto_tsquery('english', ${query})::text, '&', '|'), '')::tsquery AS query)
      SELECT p.id, p.source_type AS "sourceType", p.source_id AS "sourceId", p.title, p.kind, p.start_time AS "startTime",
             p.page, p.text, ts_rank_cd(p.search, q.query)::float8 AS score
      FROM passage p, q
      WHERE q.query IS NOT NULL AND p.user_id = ${scope.userId} AND p.course_id = ${scope.courseId}
        AND (cardinality(${sources}::text[]) = 0 OR p.source_id = ANY(${sources}::text[]))
        AND p.search @@ q.query
      ORDER BY score DESC, p.source_id, p.position
      LIMIT ${limit}`;
    return rows.map(toPassage);
  }

  async following(scope: RetrievalScope, places: readonly { sourceId: string; startTime: number | null }[]): Promise<Passage[]> {
    const segments = places.filter((place): place is { sourceId: string; startTime: number } => place.startTime !== null);
    if (segments.length === 0) return [];
    const rows = await this.prisma.$queryRaw<PassageRow[]>`
      SELECT next.id, next.source_type AS "sourceType", next.source_id AS "sourceId", next.title, next.kind,
             next.start_time AS "startTime", next.page, next.text, 0::float8 AS score
      FROM unnest(${segments.map((place) => place.sourceId)}::text[], ${segments.map((place) => place.startTime)}::float8[])
             WITH ORDINALITY AS place (source_id, start_time, ordinal)
      JOIN passage cited ON cited.user_id = ${scope.userId} AND cited.course_id = ${scope.courseId}
        AND cited.source_id = place.source_id AND cited.kind = 'segment' AND cited.start_time = place.start_time
      JOIN passage next ON next.user_id = cited.user_id AND next.course_id = cited.course_id
        AND next.source_id = cited.source_id AND next.position = cited.position + 1 AND next.kind = 'segment'
      ORDER BY place.ordinal`;
    return rows.map(toPassage);
  }
}

interface PassageRow {
  id: string;
  sourceType: string;
  sourceId: string;
  title: string;
  kind: string;
  startTime: number | null;
  page: number | null;
  text: string;
  score: number;
}

const toPassage = (row: PassageRow): Passage => ({ ...row, sourceType: row.sourceType as SourceType, kind: row.kind as PassageKind });
