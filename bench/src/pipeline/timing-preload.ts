/**
 * Preloaded into the real media worker by `npm run bench:pipeline`
 * (`node --require bench/dist/pipeline/timing-preload.js services/media/dist/worker.js`): puts a timing
 * decorator around each port worker.ts composes — the transcriber, the audio processor (ffmpeg/ffprobe), the
 * file storage, the summariser, the job repository — and around ProcessImport.run, so the benchmark can tell the
 * transcription engine's time from everything else in the shipped worker. Each awaited call appends one
 * TimingRecord (a JSON line) to PIPELINE_TIMINGS_FILE, tagged with the import it belongs to.
 *
 * worker.js reads its adapters from their modules' exports when it composes them (`new FfmpegAudioProcessor()`,
 * `createTranscriber(…)`, …); replacing those exports before worker.js loads decorates the real composition
 * without a change to the service.
 */
// First, as in worker.ts: OpenTelemetry must patch http, pg and amqplib before the adapters below load them.
import "@study/media/dist/instrumentation";
import { AsyncLocalStorage } from "node:async_hooks";
import { appendFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import * as audioModule from "@study/media/dist/adapters/audio/ffmpeg-audio-processor";
import * as jobsModule from "@study/media/dist/adapters/db/prisma-import-job-repository";
import * as storageModule from "@study/media/dist/adapters/storage/create-file-storage";
import * as summaryModule from "@study/media/dist/adapters/summary/create-summarizer";
import * as transcriptionModule from "@study/media/dist/adapters/transcription/create-transcriber";
import * as processImportModule from "@study/media/dist/application/process-import";
import { TIMINGS_FILE_VARIABLE, type TimingRecord } from "./timing-record";

const timingsFile = process.env[TIMINGS_FILE_VARIABLE];
if (!timingsFile) throw new Error(`${TIMINGS_FILE_VARIABLE} is not set`);

/** The import whose work is running (propagates through every await and timer started inside ProcessImport.run). */
const currentJob = new AsyncLocalStorage<string>();
/** Epoch ms with sub-ms resolution, comparable with the benchmark process's clock. */
const now = () => performance.timeOrigin + performance.now();
const write = (record: TimingRecord) => appendFileSync(timingsFile, `${JSON.stringify(record)}\n`);

/** `target` with every method that returns a promise recorded as one call of `port`. */
function timed<T extends object>(port: string, target: T): T {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property);
      if (typeof value !== "function" || typeof property !== "string") return value;
      return (...args: unknown[]) => {
        const startMs = now();
        const result: unknown = value.apply(object, args);
        if (!(result instanceof Promise)) return result;
        const jobId = currentJob.getStore();
        const record = (ok: boolean) => write({ jobId, port, method: property, startMs, endMs: now(), ok });
        return result.then(
          (resolved: unknown) => {
            record(true);
            return resolved;
          },
          (error: unknown) => {
            record(false);
            throw error;
          },
        );
      };
    },
  });
}

/** Replaces an export worker.js reads; fails loudly when the worker no longer has it (renamed or moved). */
function replaceExport<M extends object, K extends keyof M>(module: M, name: K, replacement: M[K]): void {
  if (typeof module[name] !== "function")
    throw new Error(`the media worker no longer exports ${String(name)}: update bench/src/pipeline/timing-preload.ts`);
  Object.assign(module, { [name]: replacement });
}

const { FfmpegAudioProcessor } = audioModule;
replaceExport(
  audioModule,
  "FfmpegAudioProcessor",
  class TimedAudioProcessor extends FfmpegAudioProcessor {
    constructor(...args: ConstructorParameters<typeof FfmpegAudioProcessor>) {
      super(...args);
      return timed("audio", this);
    }
  },
);

const { PrismaImportJobRepository } = jobsModule;
replaceExport(
  jobsModule,
  "PrismaImportJobRepository",
  class TimedImportJobRepository extends PrismaImportJobRepository {
    constructor(...args: ConstructorParameters<typeof PrismaImportJobRepository>) {
      super(...args);
      return timed("jobs", this);
    }
  },
);

const { createTranscriber } = transcriptionModule;
replaceExport(transcriptionModule, "createTranscriber", (...args: Parameters<typeof createTranscriber>) =>
  timed("transcriber", createTranscriber(...args)),
);

const { createSummarizer } = summaryModule;
replaceExport(summaryModule, "createSummarizer", (...args: Parameters<typeof createSummarizer>) => timed("summarizer", createSummarizer(...args)));

const { createFileStorage } = storageModule;
replaceExport(storageModule, "createFileStorage", (...args: Parameters<typeof createFileStorage>) => timed("storage", createFileStorage(...args)));

const { ProcessImport } = processImportModule;
replaceExport(
  processImportModule,
  "ProcessImport",
  class TimedProcessImport extends ProcessImport {
    override run(jobId: string, signal?: AbortSignal): ReturnType<InstanceType<typeof ProcessImport>["run"]> {
      const startMs = now();
      const work = currentJob.run(jobId, () => super.run(jobId, signal));
      const record = (ok: boolean, outcome?: string) => write({ jobId, port: "ProcessImport", method: "run", startMs, endMs: now(), ok, outcome });
      // Registered before the caller awaits `work`, so endMs is the moment the import finished.
      work.then(
        (outcome) => record(true, outcome),
        () => record(false),
      );
      return work;
    }
  },
);
