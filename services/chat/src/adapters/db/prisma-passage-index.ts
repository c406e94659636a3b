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
    const rows = await this.prisma.$queryRaw<
      {
        id: string;
        sourceType: string;
        sourceId: string;
        title: string;
        kind: string;
        startTime: number | null;
        page: number | null;
        text: string;
        score: number;
      }[]
    >`
      WITH q AS (SELECT NULLIF(replace(plainto_tsquery('english', ${query})::text, '&', '|'), '')::tsquery AS query)
      SELECT p.id, p.source_type AS "sourceType", p.source_id AS "sourceId", p.title, p.kind, p.start_time AS "startTime",
             p.page, p.text, ts_rank_cd(p.search, q.query)::float8 AS score
      FROM passage p, q
      WHERE q.query IS NOT NULL AND p.user_id = ${scope.userId} AND p.course_id = ${scope.courseId}
        AND (cardinality(${sources}::text[]) = 0 OR p.source_id = ANY(${sources}::text[]))
        AND p.search @@ q.query
      ORDER BY score DESC, p.source_id, p.position
      LIMIT ${limit}`;
    return rows.map((row) => ({ ...row, sourceType: row.sourceType as SourceType, kind: row.kind as PassageKind }));
  }
}
