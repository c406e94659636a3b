import { useEffect, useState, useSyncExternalStore } from "react";
import type { paths } from "@study/sdk";
import { api, client, data } from "../../lib/api";
import { ImportQueue, type ImportDeps, type StartedImport } from "./import-queue";

type UploadAnswer = paths["/api/notes/upload/audio"]["post"]["responses"][201]["content"]["application/json"]["data"];

/** The speed of transcription the API offers: 2 is faster and cheaper, 1 is standard. */
export type Speed = 1 | 2;

/** The app's imports through the SDK: an upload with progress, the job's event stream, the cancel request. */
export function apiImportDeps(courseId: string, speed: () => Speed): ImportDeps {
  return {
    async upload(file, { onProgress, signal }) {
      const form = new FormData();
      form.append("courseId", courseId);
      form.append("speedMultiplier", String(speed()));
      form.append("file", file);
      const answer = await client.upload<UploadAnswer>("/api/notes/upload/audio", form, { onProgress, signal });
      return { ...startedOf(answer), duplicateOf: answer.duplicateOf };
    },
    events: (jobId, signal) => client.events(`/api/jobs/${encodeURIComponent(jobId)}/events`, { signal }),
    async cancelJob(jobId) {
      await data(api.POST("/api/jobs/{id}/cancel", { params: { path: { id: jobId } } }));
    },
  };
}

/** What an import answer (video, audio link or upload) says about the note and job it started. */
export function startedOf(answer: Pick<UploadAnswer, "note" | "importJob">): StartedImport {
  return { noteId: answer.note.id, noteTitle: answer.note.title, jobId: answer.importJob.id, status: answer.importJob.status };
}

/** The page's import queue: its items re-render the page as they change; leaving the page stops its uploads and streams. */
export function useImportQueue(deps: () => ImportDeps) {
  const [queue] = useState(() => new ImportQueue(deps()));
  const items = useSyncExternalStore(queue.subscribe, queue.getSnapshot);
  useEffect(() => () => queue.dispose(), [queue]);
  return { queue, items };
}
