import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { noteQuery } from "./queries";
import { useCallback, useMemo, useRef, useState } from "react";
import { Dialog, DialogTrigger, Form, Heading, Modal } from "react-aria-components";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import type { Schema } from "@study/sdk";
import { Confirm } from "../../components/confirm";
import { Button, TextField } from "../../components/fields";
import { Empty, ErrorMessage, Loading } from "../../components/page-state";
import { api, data, StudyApiError } from "../../lib/api";
import { textOf } from "../../lib/form";
import { formatDate, formatSecond } from "../../lib/time";
import { NotFoundState } from "./not-found";
import { segmentAt, Transcript } from "./transcript";
import { UserNotes } from "./user-notes";
import "./notes.css";

type NoteWithTranscript = Schema<"NoteWithTranscript">;

const isNotFound = (error: unknown) => error instanceof StudyApiError && error.status === 404;

/**
 * Where the note's audio plays from: its stored file (`audioUrl`, `/api/files/<key>` on the API's origin), or the
 * audio link it was imported from. Only addresses on the app's own origin: the page's Content-Security-Policy lets
 * media load from there alone.
 */
export function audioSourceOf(note: Pick<NoteWithTranscript, "audioUrl" | "metadata">, origin: string): string | null {
  const candidate = note.audioUrl ?? (note.metadata.source === "audio_url" ? note.metadata.originalUrl : undefined);
  if (!candidate) return null;
  try {
    const url = new URL(candidate, origin);
    return url.origin === origin ? `${url.pathname}${url.search}` : null;
  } catch {
    // Not an address at all: there is nothing to play.
    return null;
  }
}

/** The second `?t=` asks to start from, or null. */
export function startSecondOf(search: URLSearchParams): number | null {
  const raw = search.get("t");
  if (raw === null || raw.trim() === "") return null;
  const second = Number(raw);
  return Number.isFinite(second) && second >= 0 ? second : null;
}

function RenameNote({ note }: { note: NoteWithTranscript }) {
  const queryClient = useQueryClient();
  const rename = useMutation({
    mutationFn: (title: string) => data(api.PATCH("/api/notes/{id}", { params: { path: { id: note.id } }, body: { title } })),
    onSuccess: (renamed) => {
      queryClient.setQueryData<NoteWithTranscript>(["notes", note.id], (old) => (old ? { ...old, title: renamed.title } : old));
      void queryClient.invalidateQueries({ queryKey: ["notes"], exact: false, refetchType: "none" });
    },
  });
  return (
    <DialogTrigger onOpenChange={() => rename.reset()}>
      <Button variant="secondary">Rename note</Button>
      <Modal className="modal" isDismissable>
        <Dialog className="dialog">
          {({ close }) => (
            <>
              <Heading slot="title">Rename the note</Heading>
              <Form
                onSubmit={(event) => {
                  event.preventDefault();
                  rename.mutate(textOf(new FormData(event.currentTarget), "title").trim(), { onSuccess: close });
                }}
              >
                <TextField
                  label="Title"
                  name="title"
                  defaultValue={note.title}
                  isRequired
                  maxLength={255}
                  autoFocus
                  problem={rename.error instanceof StudyApiError ? rename.error.fieldProblem("title") : undefined}
                />
                {rename.error && <ErrorMessage error={rename.error} />}
                <div className="actions">
                  <Button variant="secondary" onPress={close}>
                    Cancel
                  </Button>
                  <Button type="submit" isDisabled={rename.isPending}>
                    {rename.isPending ? "Saving…" : "Save title"}
                  </Button>
                </div>
              </Form>
            </>
          )}
        </Dialog>
      </Modal>
    </DialogTrigger>
  );
}

function DeleteNote({ note }: { note: NoteWithTranscript }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const remove = useMutation({
    mutationFn: () => data(api.DELETE("/api/notes/{id}", { params: { path: { id: note.id } } })),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ["notes", note.id] });
      await queryClient.invalidateQueries({ queryKey: ["notes"] });
      await queryClient.invalidateQueries({ queryKey: ["courses", note.courseId] });
      await navigate(`/courses/${note.courseId}`, { replace: true });
    },
  });
  return (
    <>
      <Confirm trigger="Delete note" title="Delete this note?" confirm="Delete note" onConfirm={() => remove.mutate()} isDisabled={remove.isPending}>
        <p>
          “{note.title}” goes with its transcript, your notes and its attachments. Flashcards, quizzes and guides made from it stay. This cannot be
          undone.
        </p>
      </Confirm>
      {remove.error && <ErrorMessage error={remove.error} />}
    </>
  );
}

function TranscriptionNotice({ note }: { note: NoteWithTranscript }) {
  if (note.transcriptionStatus === "COMPLETED") return null;
  if (note.transcriptionStatus === "FAILED") {
    return (
      <div role="alert" className="error-message">
        <p>This recording could not be transcribed.</p>
        <Link to="/jobs">See why on the imports page</Link>
      </div>
    );
  }
  return (
    <p role="status" className="notice">
      This recording is still being transcribed: the transcript appears here when it is done. <Link to="/jobs">Follow the import</Link>
    </p>
  );
}

function NoteView({ note, startSecond }: { note: NoteWithTranscript; startSecond: number | null }) {
  const audio = useRef<HTMLAudioElement>(null);
  const [second, setSecond] = useState(startSecond ?? 0);
  const [started, setStarted] = useState(startSecond !== null);
  const [blocked, setBlocked] = useState(false);
  const source = audioSourceOf(note, window.location.origin);
  const segments = note.transcriptSegments;
  const activeIndex = useMemo(() => (started ? segmentAt(segments, second) : -1), [started, segments, second]);

  const seek = useCallback(
    (to: number) => {
      setSecond(to);
      setStarted(true);
      const player = audio.current;
      if (!player) return;
      player.currentTime = to;
      player.play().then(
        () => setBlocked(false),
        // The browser refused to play without a gesture (autoplay policy): the player's own Play button will.
        () => setBlocked(true),
      );
    },
    [audio],
  );

  const courseName = note.course ? `${note.course.emoji ? `${note.course.emoji} ` : ""}${note.course.name}` : "its course";
  const duration = note.metadata.duration;

  return (
    <>
      <h1>{note.title}</h1>
      <p className="note-meta">
        <span>
          Course: <Link to={`/courses/${note.courseId}`}>{courseName}</Link>
        </span>
        <span>Added {formatDate(note.createdAt)}</span>
        {duration !== undefined && <span>Length {formatSecond(duration)}</span>}
      </p>
      <div className="row">
        <RenameNote note={note} />
        <DeleteNote note={note} />
      </div>
      <TranscriptionNotice note={note} />

      <section aria-labelledby="player-heading" className="player">
        <h2 id="player-heading" className="visually-hidden">
          Recording
        </h2>
        {source ? (
          <audio
            ref={audio}
            controls
            preload="metadata"
            src={source}
            aria-label={`Recording of ${note.title}`}
            className="audio"
            onLoadedMetadata={() => {
              if (startSecond !== null) seek(startSecond);
            }}
            onTimeUpdate={(event) => setSecond(event.currentTarget.currentTime)}
            onSeeked={(event) => setSecond(event.currentTarget.currentTime)}
            onPlay={() => setStarted(true)}
          >
            <a href={source}>Download the recording</a>
          </audio>
        ) : (
          <p className="muted">
            The recording is not stored with this note.
            {note.metadata.originalUrl && (
              <>
                {" "}
                <a href={note.metadata.originalUrl} target="_blank" rel="noreferrer noopener">
                  Open the original
                </a>
              </>
            )}
          </p>
        )}
        {blocked && (
          <p role="status" className="notice">
            Press play to listen from {formatSecond(second)}.
          </p>
        )}
        <p className="muted" aria-live="off">
          At {formatSecond(second)}
          {activeIndex >= 0 ? ` — segment ${String(activeIndex + 1)} of ${String(segments.length)}` : ""}
        </p>
      </section>

      <div className="note-columns">
        <section aria-labelledby="transcript-heading" className="transcript-section">
          <h2 id="transcript-heading">Transcript</h2>
          {segments.length === 0 ? (
            <Empty>
              <p>{note.transcriptionStatus === "COMPLETED" ? "This recording has no speech to show." : "No transcript yet."}</p>
            </Empty>
          ) : (
            <Transcript segments={segments} activeIndex={activeIndex} onSeek={seek} />
          )}
        </section>
        <UserNotes note={note} currentSecond={() => audio.current?.currentTime ?? second} displaySecond={second} onSeek={seek} />
      </div>
    </>
  );
}

/** /notes/:noteId — the recording, its transcript as segments to play from, and the person's own notes. `?t=` starts at a second. */
export function NotePage() {
  const { noteId = "" } = useParams();
  const [search] = useSearchParams();
  const startSecond = startSecondOf(search);
  const note = useQuery(noteQuery(noteId));
  if (isNotFound(note.error)) return <NotFoundState what="note" />;
  if (note.isPending)
    return (
      <>
        <h1>Note</h1>
        <Loading label="Loading the note…" />
      </>
    );
  if (note.error || !note.data)
    return (
      <>
        <h1>Note</h1>
        <ErrorMessage error={note.error} onRetry={() => void note.refetch()} />
      </>
    );
  return <NoteView key={`${noteId}-${String(startSecond)}`} note={note.data} startSecond={startSecond} />;
}
