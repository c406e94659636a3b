import { Label, ProgressBar } from "react-aria-components";
import { Link } from "react-router";
import { Button } from "../../components/fields";
import { ErrorMessage } from "../../components/page-state";
import { STAGES, type ImportItem, type JobState, type Stage } from "./import-queue";

/** Each stage of an import, as a person reads it. */
export const STAGE_LABELS: Record<Stage, string> = {
  SETUP: "Preparing the audio",
  TRANSCRIPTION: "Transcribing",
  CONTENT_PROCESSING: "Summarising",
  NOTE_CREATION: "Saving the note",
};

const KIND_LABELS = { upload: "Uploaded file", audio: "Audio link", video: "Video link" } as const;

/** A labelled progress bar (react-aria's: role=progressbar with its value and label). */
export function Progress({ label, value, valueText }: { label: string; value: number; valueText?: string }) {
  return (
    <ProgressBar value={value} valueLabel={valueText} className="progress">
      {({ percentage, valueText: text }) => (
        <>
          <div className="row spread">
            <Label>{label}</Label>
            <span>{text}</span>
          </div>
          <div className="bar">
            <div className="fill" style={{ width: `${String(percentage ?? 0)}%` }} />
          </div>
        </>
      )}
    </ProgressBar>
  );
}

const formatBytes = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${String(Math.max(1, Math.round(bytes / 1024)))} KB`;

/** What the job is doing now, in words. */
export function jobSentence(job: JobState): string {
  switch (job.status) {
    case "PENDING":
      return "Waiting for a free worker…";
    case "IN_PROGRESS":
      return `${job.stage ? STAGE_LABELS[job.stage] : "Starting"}… ${String(job.progress)} %`;
    case "COMPLETED":
      return "Done: the note is ready.";
    case "FAILED":
      return "The import failed.";
    case "CANCELLED":
      return "Import cancelled.";
  }
}

function Stages({ job }: { job: JobState }) {
  const current = job.stage ? STAGES.indexOf(job.stage) : -1;
  return (
    <ol className="stages" aria-label="Stages">
      {STAGES.map((stage, index) => {
        const done = job.status === "COMPLETED" || index < current;
        const now = !done && index === current && job.status === "IN_PROGRESS";
        return (
          <li key={stage} className={done ? "done" : now ? "now" : "waiting"} aria-current={now ? "step" : undefined}>
            <span aria-hidden="true" className="marker">
              {done ? "✓" : now ? "●" : "○"}
            </span>
            {STAGE_LABELS[stage]}
            <span className="visually-hidden">{done ? " (done)" : now ? " (in progress)" : " (to do)"}</span>
          </li>
        );
      })}
    </ol>
  );
}

interface ItemActions {
  onCancel: (key: string) => void;
  onRetryFollowing: (key: string) => void;
  onDismiss: (key: string) => void;
}

function ImportItemView({ item, onCancel, onRetryFollowing, onDismiss }: { item: ImportItem } & ItemActions) {
  const headingId = `${item.key}-heading`;
  const { job } = item;
  return (
    <li className="import-item" aria-labelledby={headingId}>
      <h3 id={headingId}>{item.noteTitle ?? item.label}</h3>
      <p className="muted">
        {KIND_LABELS[item.kind]}: {item.label}
      </p>

      {item.phase === "queued" && (
        <>
          <p role="status">Waiting for the upload before it…</p>
          <Button variant="secondary" onPress={() => onCancel(item.key)}>
            Cancel upload
          </Button>
        </>
      )}

      {item.phase === "uploading" && item.upload && (
        <>
          <Progress
            label={`Uploading ${item.label}`}
            value={item.upload.total > 0 ? (item.upload.loaded / item.upload.total) * 100 : 0}
            valueText={`${formatBytes(item.upload.loaded)} of ${formatBytes(item.upload.total)}`}
          />
          <Button variant="secondary" onPress={() => onCancel(item.key)}>
            Cancel upload
          </Button>
        </>
      )}

      {job && item.phase !== "uploading" && item.phase !== "queued" && (
        <>
          <p role="status" className="job-status">
            {jobSentence(job)}
          </p>
          {(item.phase === "importing" || item.phase === "completed") && <Stages job={job} />}
          {item.phase === "importing" && (
            <>
              <Progress label="Import progress" value={job.progress} />
              <Button variant="danger" onPress={() => onCancel(item.key)} isDisabled={item.cancelling}>
                {item.cancelling ? "Cancelling…" : "Cancel import"}
              </Button>
            </>
          )}
          {item.phase === "failed" && (
            <div role="alert" className="error-message">
              <p>{job.errorMessage ?? "The import stopped without saying why."}</p>
            </div>
          )}
          {item.phase === "completed" && item.noteId && (
            <p>
              <Link className="button primary" to={`/notes/${item.noteId}`}>
                Open the note
              </Link>
            </p>
          )}
        </>
      )}

      {item.duplicateOf && item.phase !== "failed" && (
        <p className="muted">
          You uploaded this recording before: <Link to={`/notes/${item.duplicateOf}`}>see the earlier note</Link>.
        </p>
      )}

      {item.error !== undefined && (
        <ErrorMessage error={item.error} onRetry={item.phase === "importing" ? () => onRetryFollowing(item.key) : undefined} />
      )}

      {item.phase === "cancelled" && !job && <p role="status">Upload cancelled: nothing was kept.</p>}

      {(item.phase === "completed" || item.phase === "failed" || item.phase === "cancelled") && (
        <Button variant="secondary" onPress={() => onDismiss(item.key)}>
          Remove from this list
        </Button>
      )}
    </li>
  );
}

/** The imports started on this page, newest first, each with its upload, stages and outcome. */
export function ImportList({ items, ...actions }: { items: readonly ImportItem[] } & ItemActions) {
  return (
    <ul className="import-list">
      {[...items].reverse().map((item) => (
        <ImportItemView key={item.key} item={item} {...actions} />
      ))}
    </ul>
  );
}
