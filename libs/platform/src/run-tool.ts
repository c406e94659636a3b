import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";

/** How many of a tool's last stderr lines an error message quotes. */
const STDERR_LINES_IN_ERROR = 6;
/** stderr kept while a tool runs (its tail is all an error needs; pocketsphinx logs megabytes). */
const STDERR_KEPT_BYTES = 16 * 1024;

/**
 * Why a tool did not succeed: it could not be started, it exited with a failure status (or was killed by
 * someone else), it ran over its `timeoutMs`, or it wrote more than `maxStdoutBytes`.
 */
export type ExternalToolFailure = "not-started" | "failed" | "timeout" | "output-too-large";

/** A command-line tool (ffmpeg, ffprobe, pocketsphinx, pdftotext, tesseract…) that could not be started or did not succeed. */
export class ExternalToolError extends Error {
  constructor(
    readonly tool: string,
    /** Null when the tool could not be started or was ended by a signal. */
    readonly exitCode: number | null,
    /** The last lines the tool wrote to stderr. */
    readonly stderrTail: string[],
    message: string,
    readonly failure: ExternalToolFailure = "failed",
  ) {
    super(message);
    this.name = "ExternalToolError";
  }
}

export interface RunToolOptions {
  signal?: AbortSignal;
  /** Receives each complete stdout line as soon as the tool writes it (for progress). */
  onStdoutLine?: (line: string) => void;
  /** Picks the stderr lines worth quoting in an error (default: the last few). */
  selectErrorLines?(stderrLines: string[]): string[];
  /** Kills the tool (SIGKILL) once it has run this long and rejects with a `timeout` ExternalToolError. */
  timeoutMs?: number;
  /**
   * Kills the tool (SIGKILL) as soon as its stdout passes this many bytes and rejects with an `output-too-large`
   * ExternalToolError: a tool fed a hostile file cannot fill the memory.
   */
  maxStdoutBytes?: number;
  /** Environment variables added to the process's own (e.g. OMP_THREAD_LIMIT for tesseract). */
  env?: Record<string, string>;
}

/**
 * Runs a tool without a shell (arguments are never interpreted) and resolves with its stdout (UTF-8) once it
 * exits with status 0. An abort kills it (SIGKILL) and rejects with the signal's reason once the process is gone,
 * so the caller may delete its files right away. A failure rejects with an ExternalToolError quoting stderr's tail.
 */
export function runTool(tool: string, args: string[], options: RunToolOptions = {}): Promise<string> {
  const { signal, onStdoutLine, timeoutMs, maxStdoutBytes } = options;
  return new Promise<string>((resolve, reject) => {
    if (signal?.aborted) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the abort reason as given, as signal.throwIfAborted() throws it: callers recognise their own reason
      reject(signal.reason);
      return;
    }
    const child = spawn(tool, args, {
      stdio: ["ignore", "pipe", "pipe"],
      shell: false,
      ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
    });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    const lineDecoder = new StringDecoder("utf8");
    let partialLine = "";
    let stderr = "";
    let startError: Error | undefined;
    /** Set when this function killed the tool for one of its own limits. */
    let overLimit: "timeout" | "output-too-large" | undefined;

    const kill = () => child.kill("SIGKILL");
    const killFor = (limit: "timeout" | "output-too-large") => {
      overLimit ??= limit;
      kill();
    };

    child.stdout.on("data", (chunk: Buffer) => {
      if (overLimit) return;
      stdoutBytes += chunk.length;
      if (maxStdoutBytes !== undefined && stdoutBytes > maxStdoutBytes) {
        killFor("output-too-large");
        return;
      }
      stdout.push(chunk);
      if (!onStdoutLine) return;
      const lines = (partialLine + lineDecoder.write(chunk)).split("\n");
      partialLine = lines.pop() ?? "";
      for (const line of lines) onStdoutLine(line.replace(/\r$/, ""));
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEPT_BYTES);
    });

    signal?.addEventListener("abort", kill, { once: true });
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => killFor("timeout"), timeoutMs);

    child.on("error", (error) => {
      startError = error;
    });
    child.on("close", (exitCode, killedBy) => {
      signal?.removeEventListener("abort", kill);
      clearTimeout(timer);
      partialLine += lineDecoder.end();
      if (onStdoutLine && partialLine && !overLimit) onStdoutLine(partialLine);
      if (signal?.aborted) {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the abort reason as given, as signal.throwIfAborted() throws it: callers recognise their own reason
        reject(signal.reason);
        return;
      }
      if (startError) {
        const code = (startError as NodeJS.ErrnoException).code;
        const reason = code === "ENOENT" ? "is not installed (not found on PATH)" : `could not be started: ${startError.message}`;
        reject(new ExternalToolError(tool, null, [], `${tool} ${reason}`, "not-started"));
        return;
      }
      const lines = stderr
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean);
      const quoted = (options.selectErrorLines ?? ((all) => all))(lines).slice(-STDERR_LINES_IN_ERROR);
      if (overLimit === "timeout") {
        reject(new ExternalToolError(tool, null, quoted, `${tool} did not finish within ${timeoutMs} ms`, "timeout"));
        return;
      }
      if (overLimit === "output-too-large") {
        reject(new ExternalToolError(tool, null, quoted, `${tool} wrote more than ${maxStdoutBytes} bytes`, "output-too-large"));
        return;
      }
      if (exitCode === 0) {
        resolve(Buffer.concat(stdout).toString("utf8"));
        return;
      }
      const status = exitCode === null ? `was killed by ${killedBy}` : `failed with exit code ${exitCode}`;
      reject(new ExternalToolError(tool, exitCode, quoted, `${tool} ${status}${quoted.length ? `: ${quoted.join(" | ")}` : ""}`, "failed"));
    });
  });
}
