import { AppError } from "@study/platform/errors";
import { isUuid } from "@study/platform/ids";
import { systemClock, type Clock } from "@study/platform/clock";
import { completeJob } from "../domain/import-job";
import { completeTranscription, type TranscriptionResult, type TranscriptSegment } from "../domain/note";
import { transitionJob, type JobTransitionStore } from "./job-transitions";
import { noteTranscribed } from "./media-events";
import { newId } from "@study/grpc/ids";
import type { JobWithNote } from "./ports/import-job-repository.port";

/**
 * Pipeline: the import succeeded. The note gets its transcript, summary, segments and metadata and becomes
 * COMPLETED; the job COMPLETED with progress 100 and completedAt; NoteTranscribed carries what search and
 * study generation need. Refused with JOB_ALREADY_FINISHED when the job was cancelled meanwhile (its note may
 * be gone), and JOB_NOT_STARTED for a job that never started.
 */
export class CompleteJob {
  constructor(
    private readonly jobs: JobTransitionStore,
    private readonly clock: Clock = systemClock,
  ) {}

  async execute(jobId: string, result: TranscriptionResult): Promise<JobWithNote> {
    if (!isUuid(jobId)) throw AppError.notFound("Job");
    return transitionJob(
      this.jobs,
      () => this.jobs.findWithNote(jobId),
      ({ job, note }) => {
        const now = this.clock.now();
        const completed = completeJob(job, now);
        if (!note) throw new AppError("precondition", "NOTE_DELETED", "The job's note was deleted");
        const transcribed = completeTranscription(note, result, now);
        const segments: TranscriptSegment[] = result.segments.map((segment) => ({
          id: newId(),
          noteId: note.id,
          text: segment.text,
          startTime: segment.startTime,
          endTime: segment.endTime,
          speaker: segment.speaker ?? null,
          ...(segment.confidence !== undefined ? { confidence: segment.confidence } : {}),
        }));
        return { job: completed, note: transcribed, segments, events: [], noteEvents: (saved) => [noteTranscribed(saved, completed, segments)] };
      },
    );
  }
}
