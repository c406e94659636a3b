import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { DropZone, FileTrigger, Form, Label, RadioGroup, Tab, TabList, TabPanel, Tabs, Text, type DropItem } from "react-aria-components";
import { Link, useParams } from "react-router";
import { Button, TextField } from "../../components/fields";
import { Empty, ErrorMessage, Loading } from "../../components/page-state";
import { api, data, StudyApiError } from "../../lib/api";
import { textOf } from "../../lib/form";
import type { ImportKind, StartedImport } from "./import-queue";
import { ImportList } from "./import-items";
import { NotFoundState } from "./not-found";
import { apiImportDeps, startedOf, useImportQueue, type Speed } from "./use-imports";
import { Choice } from "./choice";
import "./notes.css";

/** What the file button offers (the API checks the content: MP3, WAV, M4A, AAC, OGG, FLAC, WEBM, MP4). */
const AUDIO_TYPES = ["audio/*", "video/mp4", "video/webm", ".mp3", ".wav", ".m4a", ".aac", ".ogg", ".flac", ".webm", ".mp4"];

const isNotFound = (error: unknown) => error instanceof StudyApiError && error.status === 404;
const problemOf = (error: unknown, field: string) => (error instanceof StudyApiError ? error.fieldProblem(field) : undefined);

async function filesOf(items: DropItem[]): Promise<File[]> {
  const files: File[] = [];
  for (const item of items) if (item.kind === "file") files.push(await item.getFile());
  return files;
}

function UploadPanel({ onFiles }: { onFiles: (files: File[]) => void }) {
  return (
    <div className="upload-panel">
      <DropZone
        className="drop-zone"
        aria-label="Drop audio files here"
        // Any file is taken: the API judges its content and a refusal shows as that file's error.
        getDropOperation={() => "copy"}
        onDrop={(event) => {
          void filesOf(event.items).then((files) => {
            if (files.length > 0) onFiles(files);
          });
        }}
      >
        <Text slot="label">Drop audio files here</Text>
        <p className="muted">MP3, WAV, M4A, AAC, OGG, FLAC, WEBM or MP4, up to 150 MB each. Several files upload one after another.</p>
        <FileTrigger
          acceptedFileTypes={AUDIO_TYPES}
          allowsMultiple
          onSelect={(list) => {
            if (list && list.length > 0) onFiles([...list]);
          }}
        >
          <Button variant="secondary">Choose audio files</Button>
        </FileTrigger>
      </DropZone>
    </div>
  );
}

interface LinkPanelProps {
  kind: Exclude<ImportKind, "upload">;
  courseId: string;
  speed: Speed;
  onStarted: (kind: ImportKind, label: string, started: StartedImport) => void;
}

/** A form for a link: an audio file's URL or a video page. */
function LinkPanel({ kind, courseId, speed, onStarted }: LinkPanelProps) {
  const [url, setUrl] = useState("");
  const start = useMutation({
    mutationFn: async (link: string) => {
      const body = { url: link, courseId, speedMultiplier: speed };
      const answer =
        kind === "video" ? await data(api.POST("/api/notes/import/video", { body })) : await data(api.POST("/api/notes/import/audio", { body }));
      return startedOf(answer);
    },
    onSuccess: (started, link) => {
      onStarted(kind, link, started);
      setUrl("");
    },
  });
  const label = kind === "video" ? "Link to the video" : "Link to the audio file";
  return (
    <Form
      onSubmit={(event) => {
        event.preventDefault();
        start.mutate(textOf(new FormData(event.currentTarget), "url").trim());
      }}
    >
      <TextField
        label={label}
        name="url"
        type="url"
        inputMode="url"
        isRequired
        value={url}
        onChange={setUrl}
        description={
          kind === "video"
            ? "The address of a lecture video's page. Its audio is downloaded and transcribed."
            : "The address of an audio file (MP3, WAV, M4A, AAC, OGG, FLAC, WEBM or MP4)."
        }
        problem={problemOf(start.error, "url")}
      />
      {start.error && !problemOf(start.error, "url") && <ErrorMessage error={start.error} />}
      <Button type="submit" isDisabled={start.isPending}>
        {start.isPending ? "Starting…" : kind === "video" ? "Import video" : "Import audio"}
      </Button>
    </Form>
  );
}

function ImportForms({ courseId, courseName }: { courseId: string; courseName: string }) {
  const [speed, setSpeed] = useState<Speed>(2);
  const speedRef = useRef(speed);
  speedRef.current = speed;
  const queryClient = useQueryClient();
  const { queue, items } = useImportQueue(() => apiImportDeps(courseId, () => speedRef.current));
  const onStarted = (kind: ImportKind, label: string, started: StartedImport) => {
    queue.addStarted(kind, label, started);
    void queryClient.invalidateQueries({ queryKey: ["notes"] });
  };
  return (
    <>
      <p>
        For the course <Link to={`/courses/${courseId}`}>{courseName}</Link>
      </p>
      <div className="card">
        <RadioGroup className="field radio-group" value={String(speed)} onChange={(value) => setSpeed(value === "1" ? 1 : 2)}>
          <Label>Transcription</Label>
          <Choice value="2">Faster and cheaper</Choice>
          <Choice value="1">Standard speed</Choice>
        </RadioGroup>
        <Tabs className="tabs">
          <TabList aria-label="Where the recording comes from" className="tab-list">
            <Tab id="upload">Upload a recording</Tab>
            <Tab id="audio">Audio link</Tab>
            <Tab id="video">Video link</Tab>
          </TabList>
          <TabPanel id="upload" className="tab-panel">
            <UploadPanel
              onFiles={(files) => {
                queue.addFiles(files);
                void queryClient.invalidateQueries({ queryKey: ["notes"] });
              }}
            />
          </TabPanel>
          <TabPanel id="audio" className="tab-panel">
            <LinkPanel kind="audio" courseId={courseId} speed={speed} onStarted={onStarted} />
          </TabPanel>
          <TabPanel id="video" className="tab-panel">
            <LinkPanel kind="video" courseId={courseId} speed={speed} onStarted={onStarted} />
          </TabPanel>
        </Tabs>
      </div>
      <section aria-labelledby="imports-heading">
        <h2 id="imports-heading">Imports</h2>
        {items.length === 0 ? (
          <Empty>
            <p>Nothing imported yet. Each import shows its upload, its stages and its note here.</p>
          </Empty>
        ) : (
          <ImportList
            items={items}
            onCancel={(key) => void queue.cancel(key)}
            onRetryFollowing={(key) => queue.retryFollowing(key)}
            onDismiss={(key) => queue.dismiss(key)}
          />
        )}
      </section>
    </>
  );
}

/** /courses/:courseId/notes/new — a note from an uploaded recording, an audio link or a video link. */
export function ImportPage() {
  const { courseId = "" } = useParams();
  const course = useQuery({
    queryKey: ["courses", courseId],
    queryFn: () => data(api.GET("/api/courses/{id}", { params: { path: { id: courseId } } })),
  });
  if (isNotFound(course.error)) return <NotFoundState what="course" />;
  return (
    <>
      <h1>Add a note</h1>
      {course.isPending ? (
        <Loading label="Loading the course…" />
      ) : course.error || !course.data ? (
        <ErrorMessage error={course.error} onRetry={() => void course.refetch()} />
      ) : (
        <ImportForms key={courseId} courseId={courseId} courseName={course.data.name} />
      )}
    </>
  );
}
