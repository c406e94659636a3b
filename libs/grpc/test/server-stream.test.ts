import { status, type ServiceError } from "@grpc/grpc-js";
import { media as api } from "@study/contracts";
import { createClient, fromServiceError, serverStream, startGrpcServer, type RunningGrpcServer, type ServerStreamHandler } from "@study/grpc";
import { AppError, createLogger } from "@study/platform";

const logger = createLogger("test", "silent");
type Handler = ServerStreamHandler<api.WatchImportJobRequest, api.WatchImportJobResponse>;

/** A media service whose only method is WatchImportJob (a server-streaming call), bound with `serverStream`. */
async function serve(handler: Handler) {
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    logger,
    services: [{ definition: api.MediaServiceService, implementation: { watchImportJob: serverStream(logger, "WatchImportJob", handler) } }],
  });
  const client = createClient(api.MediaServiceClient, api.MediaServiceService, `127.0.0.1:${server.port}`);
  return { server, client };
}

/** Every message of the call and how it ended. */
function follow(call: ReturnType<api.MediaServiceClient["watchImportJob"]>) {
  const messages: api.WatchImportJobResponse[] = [];
  call.on("data", (message: api.WatchImportJobResponse) => messages.push(message));
  const ended = new Promise<ServiceError | null>((resolve) => {
    call.on("error", (error: ServiceError) => resolve(error));
    call.on("end", () => resolve(null));
  });
  return { messages, ended };
}

const progress = (value: number): api.WatchImportJobResponse => ({
  status: api.JobStatus.JOB_STATUS_IN_PROGRESS,
  progress: value,
  stage: api.ProgressStage.PROGRESS_STAGE_TRANSCRIPTION,
});

describe("serverStream (server-streaming binding)", () => {
  let running: { server: RunningGrpcServer; client: ReturnType<typeof createClient<api.MediaServiceClient>> } | undefined;

  afterEach(async () => {
    running?.client.close();
    await running?.server.shutdown();
    running = undefined;
  });

  it("sends every message in order and ends the stream with OK when the handler resolves", async () => {
    running = await serve(async (request, { send }) => {
      expect(request).toEqual({ userId: "u1", jobId: "j1" });
      for (const value of [10, 20, 30]) await send(progress(value));
    });
    const { messages, ended } = follow(running.client.raw.watchImportJob({ userId: "u1", jobId: "j1" }));
    expect(await ended).toBeNull();
    expect(messages.map((message) => message.progress)).toEqual([10, 20, 30]);
  });

  it("ends with the AppError's code and detail (the client gets the same AppError), or INTERNAL for anything else", async () => {
    running = await serve(async (request, { send }) => {
      if (request.jobId === "other") throw AppError.notFound("Job");
      await send(progress(5));
      throw new Error("database exploded");
    });
    const refused = follow(running.client.raw.watchImportJob({ userId: "u1", jobId: "other" }));
    const error = await refused.ended;
    expect(error?.code).toBe(status.NOT_FOUND);
    expect(fromServiceError(error!, "MediaService")).toMatchObject({ kind: "not_found", code: "NOT_FOUND" });
    expect(refused.messages).toEqual([]);

    const broken = follow(running.client.raw.watchImportJob({ userId: "u1", jobId: "j1" }));
    const internal = await broken.ended;
    expect(broken.messages.map((message) => message.progress)).toEqual([5]);
    expect(internal?.code).toBe(status.INTERNAL);
    expect(fromServiceError(internal!, "MediaService")).toMatchObject({
      kind: "internal",
      code: "INTERNAL_ERROR",
      message: "An unexpected error occurred",
    });
  });

  it("aborts the handler's signal when the client cancels, and `send` then refuses", async () => {
    let aborted!: () => void;
    const handlerSawAbort = new Promise<void>((resolve) => (aborted = resolve));
    let sendAfterAbort: Promise<void> | undefined;
    running = await serve(async (_request, { send, signal }) => {
      await send(progress(1));
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      sendAfterAbort = send(progress(2));
      aborted();
      await sendAfterAbort;
    });
    const call = running.client.raw.watchImportJob({ userId: "u1", jobId: "j1" });
    const { ended } = follow(call);
    await new Promise<void>((resolve) => call.once("data", () => resolve()));
    call.cancel();
    expect((await ended)?.code).toBe(status.CANCELLED);
    await handlerSawAbort;
    await expect(sendAfterAbort).rejects.toThrow(/cancelled/);
  });
});
