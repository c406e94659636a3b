/** Environment variable naming the JSON-lines file the timing preload appends to. */
export const TIMINGS_FILE_VARIABLE = "PIPELINE_TIMINGS_FILE";

/** One awaited call of a port in the media worker, as the timing preload writes it (one JSON line). */
export interface TimingRecord {
  /** The import the call belongs to (undefined outside an import, e.g. at start-up). */
  jobId?: string;
  /** "ProcessImport", "transcriber", "audio", "storage", "summarizer", "jobs". */
  port: string;
  method: string;
  /** Epoch milliseconds (fractional: performance.timeOrigin + performance.now()). */
  startMs: number;
  endMs: number;
  ok: boolean;
  /** ProcessImport.run's outcome: "completed", "failed", "cancelled" or "skipped". */
  outcome?: string;
}
