import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { FileTrigger, Form, Label, RadioGroup } from "react-aria-components";
import type { Schema } from "@study/sdk";
import { Button, TextField } from "../../components/fields";
import { Empty, ErrorMessage } from "../../components/page-state";
import { api, client, data, StudyApiError } from "../../lib/api";
import { formatSecond } from "../../lib/time";
import { Choice } from "./choice";
import { Progress } from "./import-items";

export type UserNote = Schema<"UserNote">;
type NoteWithTranscript = Schema<"NoteWithTranscript">;
type Attachment = Schema<"AttachmentUploadResult">;

/** The file name at the end of a stored file's address (`/api/files/…/slides.pdf`). */
export function fileNameOf(url: string): string {
  const last = url.split("?")[0].split("/").filter(Boolean).pop() ?? url;
  try {
    return decodeURIComponent(last);
  } catch {
    // A name that is not valid percent-encoding reads fine as it is.
    return last;
  }
}

/** A link a note may open: http(s) only (a `javascript:` URL typed as a link must not run). */
const safeHref = (url: string) => /^https?:\/\//i.test(url) || url.startsWith("/");

function UserNoteContent({ note }: { note: UserNote }) {
  if (note.contentType === "url") {
    return safeHref(note.content) ? (
      <a href={note.content} target="_blank" rel="noreferrer noopener">
        {note.content}
      </a>
    ) : (
      <span>{note.content}</span>
    );
  }
  if (note.contentType === "file") {
    return safeHref(note.content) ? (
      <a href={note.content} download>
        {fileNameOf(note.content)}
      </a>
    ) : (
      <span>{fileNameOf(note.content)}</span>
    );
  }
  return <span className="user-note-text">{note.content}</span>;
}

type Kind = UserNote["contentType"];

const ADD_LABELS: Record<Kind, string> = { text: "Add note", url: "Add link", file: "Attach file" };

interface UserNotesProps {
  note: NoteWithTranscript;
  /** The player's current second, read when a note is added. */
  currentSecond: () => number;
  /** Shown on the add button while the player moves. */
  displaySecond: number;
  onSeek: (second: number) => void;
}

/** The person's own notes on the recording: text, links and files, each at a second of the audio. */
export function UserNotes({ note, currentSecond, displaySecond, onSeek }: UserNotesProps) {
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<Kind>("text");
  const [text, setText] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [description, setDescription] = useState("");
  const [uploaded, setUploaded] = useState<{ loaded: number; total: number } | null>(null);

  const save = useMutation({
    mutationFn: (userNotes: UserNote[]) => data(api.PUT("/api/notes/{id}/user-notes", { params: { path: { id: note.id } }, body: { userNotes } })),
    onSuccess: (saved) => {
      queryClient.setQueryData<NoteWithTranscript>(["notes", note.id], (old) => (old ? { ...old, userNotes: saved.userNotes } : old));
    },
  });

  const add = useMutation({
    mutationFn: async ({ second, kind: addKind }: { second: number; kind: Kind }) => {
      let content = text.trim();
      if (addKind === "file") {
        if (!file) throw new StudyApiError(400, "VALIDATION_ERROR", "Choose a file to attach first.");
        const form = new FormData();
        form.append("timestamp", String(second));
        if (description.trim()) form.append("description", description.trim());
        form.append("file", file);
        setUploaded({ loaded: 0, total: file.size });
        try {
          const attachment = await client.upload<Attachment>(`/api/notes/${encodeURIComponent(note.id)}/attachments`, form, {
            onProgress: setUploaded,
          });
          content = attachment.fileUrl;
        } finally {
          setUploaded(null);
        }
      }
      return save.mutateAsync([...note.userNotes, { timestamp: second, content, contentType: addKind }]);
    },
    onSuccess: () => {
      setText("");
      setFile(null);
      setDescription("");
    },
  });

  const remove = (index: number) => save.mutate(note.userNotes.filter((_, position) => position !== index));

  return (
    <section aria-labelledby="user-notes-heading" className="user-notes">
      <h2 id="user-notes-heading">Your notes</h2>
      {note.userNotes.length === 0 ? (
        <Empty>
          <p>No notes yet. Pause where something matters and add a note, a link or a file at that second.</p>
        </Empty>
      ) : (
        <ul className="list user-note-list">
          {note.userNotes.map((userNote, index) => (
            <li key={`${String(userNote.timestamp)}-${String(index)}`} className="user-note">
              <Button
                variant="secondary"
                className="time-button"
                aria-label={`Play from ${formatSecond(userNote.timestamp)}`}
                onPress={() => onSeek(userNote.timestamp)}
              >
                {formatSecond(userNote.timestamp)}
              </Button>
              <div className="user-note-content">
                <UserNoteContent note={userNote} />
              </div>
              <Button
                variant="secondary"
                aria-label={`Remove the note at ${formatSecond(userNote.timestamp)}`}
                isDisabled={save.isPending}
                onPress={() => remove(index)}
              >
                Remove
              </Button>
            </li>
          ))}
        </ul>
      )}
      {save.error && !add.error && <ErrorMessage error={save.error} />}

      <Form
        className="card add-note"
        onSubmit={(event) => {
          event.preventDefault();
          add.mutate({ second: Math.floor(currentSecond()), kind });
        }}
      >
        <RadioGroup
          className="field radio-group"
          orientation="horizontal"
          value={kind}
          onChange={(value) => setKind(value === "url" ? "url" : value === "file" ? "file" : "text")}
        >
          <Label>Kind of note</Label>
          <Choice value="text">Text</Choice>
          <Choice value="url">Link</Choice>
          <Choice value="file">File</Choice>
        </RadioGroup>
        {kind === "text" && <TextField label="Note text" multiline isRequired maxLength={1000} value={text} onChange={setText} />}
        {kind === "url" && <TextField label="Link address" type="url" isRequired maxLength={1000} value={text} onChange={setText} />}
        {kind === "file" && (
          <>
            <div className="field">
              <span className="field-label" id="attachment-label">
                File to attach
              </span>
              <div className="row">
                <FileTrigger
                  acceptedFileTypes={[
                    ".png",
                    ".jpg",
                    ".jpeg",
                    ".gif",
                    ".webp",
                    ".pdf",
                    ".doc",
                    ".docx",
                    ".txt",
                    ".ppt",
                    ".pptx",
                    ".xls",
                    ".xlsx",
                    ".csv",
                  ]}
                  onSelect={(list) => setFile(list?.[0] ?? null)}
                >
                  <Button variant="secondary" aria-describedby="attachment-label attachment-chosen">
                    Choose a file
                  </Button>
                </FileTrigger>
                <span id="attachment-chosen" className="muted">
                  {file ? file.name : "No file chosen"}
                </span>
              </div>
              <span slot="description">Images, PDF, Word, text, slides or spreadsheets (images and spreadsheets up to 10 MB, others 25 MB).</span>
            </div>
            <TextField label="Description (optional)" maxLength={1000} value={description} onChange={setDescription} />
            {uploaded && (
              <Progress label={`Uploading ${file?.name ?? "the file"}`} value={uploaded.total > 0 ? (uploaded.loaded / uploaded.total) * 100 : 0} />
            )}
          </>
        )}
        {add.error && <ErrorMessage error={add.error} />}
        <Button type="submit" isDisabled={add.isPending || save.isPending}>
          {add.isPending ? "Saving…" : `${ADD_LABELS[kind]} at ${formatSecond(displaySecond)}`}
        </Button>
      </Form>
    </section>
  );
}
