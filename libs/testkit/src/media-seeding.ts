import { randomUUID } from "node:crypto";

/** What `query` of a pg Client (or Pool) offers. */
interface Queryable {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

export interface TranscribedMaterial {
  content: string;
  summary: string | null;
  /** Seconds into the recording. */
  segments: readonly { start: number; end: number; text: string; speaker?: string }[];
  duration?: number;
}

/**
 * Finishes an import the way media's worker does when transcription succeeds — the note COMPLETED with its
 * transcript, summary and timed segments, the job COMPLETED — written straight into media's database. An import is
 * transcribed from real audio (seconds to minutes each), too slow for a benchmark's or a test's material; the note
 * and job themselves come from media's own CreateImport. Publishes no event: a later change (e.g. the user's notes)
 * announces the note.
 */
export async function completeImportInDatabase(
  mediaDb: Queryable,
  ids: { noteId: string; jobId: string },
  material: TranscribedMaterial,
): Promise<void> {
  const duration = material.duration ?? material.segments.reduce((end, segment) => Math.max(end, segment.end), 0);
  const wordCount = material.content.split(/\s+/u).filter(Boolean).length;
  await mediaDb.query(
    `UPDATE note SET transcription_status = 'COMPLETED', content = $2, summary = $3,
       metadata = metadata || jsonb_build_object('duration', $4::float8, 'wordCount', $5::int, 'language', 'en', 'confidence', 0.9)
     WHERE id = $1`,
    [ids.noteId, material.content, material.summary, duration, wordCount],
  );
  if (material.segments.length > 0) {
    await mediaDb.query(
      `INSERT INTO transcript_segment (id, note_id, position, text, start_time, end_time, speaker)
       SELECT seeded.id, $1, seeded.position - 1, seeded.text, seeded.start_time, seeded.end_time, seeded.speaker
       FROM unnest($2::uuid[], $3::text[], $4::float8[], $5::float8[], $6::text[]) WITH ORDINALITY
         AS seeded (id, text, start_time, end_time, speaker, position)`,
      [
        ids.noteId,
        material.segments.map(() => randomUUID()),
        material.segments.map((segment) => segment.text),
        material.segments.map((segment) => segment.start),
        material.segments.map((segment) => segment.end),
        material.segments.map((segment) => segment.speaker ?? null),
      ],
    );
  }
  await mediaDb.query(`UPDATE import_job SET status = 'COMPLETED', progress = 100, completed_at = now(), version = version + 1 WHERE id = $1`, [
    ids.jobId,
  ]);
}
