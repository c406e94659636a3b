import { media } from "@study/contracts";
import { serverStream, startGrpcServer, type RunningGrpcServer, type ServerStreamContext } from "@study/grpc";
import { AppError, createLogger } from "@study/platform";
import { jobRoutes } from "../../src/routes/jobs";
import { startStandInGateway, type StandInGateway } from "./route-harness";

const { JobStatus, ProgressStage } = media;

const logger = createLogger("test", "silent");
const USER_ID = "user-1";
const JOB_ID = "5c4b3a29-1807-4f6e-9d5c-4b3a29180706";

type WatchScript = (context: ServerStreamContext<media.WatchImportJobRequest, media.WatchImportJobResponse>) => Promise<void>;
const pending: media.WatchImportJobResponse = { status: JobStatus.JOB_STATUS_PENDING, progress: 0, stage: ProgressStage.PROGRESS_STAGE_UNSPECIFIED };
const transcribing: media.WatchImportJobResponse = {
  status: JobStatus.JOB_STATUS_IN_PROGRESS,
  progress: 40,
  stage: ProgressStage.PROGRESS_STAGE_TRANSCRIPTION,
};
const completed: media.WatchImportJobResponse = {
  status: JobStatus.JOB_STATUS_COMPLETED,
  progress: 100,
  stage: ProgressStage.PROGRESS_STAGE_NOTE_CREATION,
};
let watchScript: WatchScript;
const watched: media.WatchImportJobRequest[] = [];

function startMedia(): Promise<RunningGrpcServer> {
  return startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    services: [
      {
        definition: media.MediaServiceService,
        implementation: {
          watchImportJob: serverStream<media.WatchImportJobRequest, media.WatchImportJobResponse>(
            logger,
            "WatchImportJob",
            async (request, context) => {
              watched.push(request);
              if (request.jobId !== JOB_ID) throw AppError.notFound("Job");
              await watchScript(context);
            },
          ),
        },
      },
    ],
  });
}

const progressEvents = (text: string) =>
  text
    .split("\n\n")
    .filter((block) => block.startsWith("event: progress\n"))
    .map((block) => JSON.parse(block.slice(block.indexOf("data: ") + "data: ".length)) as unknown);

/** The SSE endpoint of an import job's progress (the event-stream plumbing chat's answers share). */
describe("GET /api/jobs/:id/events", () => {
  let gateway: StandInGateway;
  let api: StandInGateway["api"];
  const token = "secret-session";

  beforeAll(async () => {
    gateway = await startStandInGateway(await startMedia(), (clients) => jobRoutes(clients, logger), { userId: USER_ID, logger });
    api = gateway.api;
  });
  afterAll(() => gateway.stop());
  beforeEach(() => {
    watched.length = 0;
  });

  it("sends every recorded state as a `progress` event until the job ends", async () => {
    watchScript = async ({ send }) => {
      for (const state of [pending, transcribing, completed]) await send(state);
    };
    const response = await api("GET", `/api/jobs/${JOB_ID}/events`, { token });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(progressEvents(response.body as string)).toEqual([
      { status: "PENDING", progress: 0, stage: null },
      { status: "IN_PROGRESS", progress: 40, stage: "TRANSCRIPTION" },
      { status: "COMPLETED", progress: 100, stage: "NOTE_CREATION" },
    ]);
    expect(watched).toEqual([{ userId: USER_ID, jobId: JOB_ID }]);
  });

  it("answers another user's or an unknown job with a normal 404 envelope, not a stream", async () => {
    const response = await api("GET", "/api/jobs/0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d/events", { token });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ success: false, error: "Job not found", code: "NOT_FOUND" });
  });

  it("ends the stream, without an error event, when media fails after it began", async () => {
    watchScript = async ({ send }) => {
      await send(transcribing);
      throw AppError.internal("media lost its database");
    };
    const response = await api("GET", `/api/jobs/${JOB_ID}/events`, { token });
    expect(response.status).toBe(200);
    expect(response.body).toBe(`event: progress\ndata: ${JSON.stringify({ status: "IN_PROGRESS", progress: 40, stage: "TRANSCRIPTION" })}\n\n`);
  });

  it("stops following the job when the client goes away", async () => {
    let stopped!: () => void;
    const watchCancelled = new Promise<void>((resolve) => (stopped = resolve));
    watchScript = async ({ send, signal }) => {
      await send(transcribing);
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      stopped();
    };
    const client = new AbortController();
    const response = await fetch(`${gateway.url}/api/jobs/${JOB_ID}/events`, {
      headers: { authorization: `Bearer ${token}` },
      signal: client.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toMatch(/^event: progress\n/);
    client.abort();
    await watchCancelled;
  });
});
