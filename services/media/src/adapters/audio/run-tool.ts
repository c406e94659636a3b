import { spawn } from "node:child_process";

/** How many of a tool's last stderr lines an error message quotes. */
const STDERR_LINES_IN_ERROR = 6;
/** stderr kept while a tool runs (its tail is all an error needs; pocketsphinx logs megabytes). */
const STDERR_KEPT_BYTES = 16 * 1024;

/** A command-line tool (ffmpeg, ffprobe, pocketsphinx) that could not be started or did not succeed. */
export class ExternalToolError extends Error {
  constructor(
    readonly tool: string,
    /** Null when the tool could not be started or was ended by a signal. */
    readonly exitCode: number | null,
    /** The last lines the tool wrote to stderr. */
    readonly stderrTail: string[],
    message: string,
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
}

/**
 * Runs a tool without a shell (arguments are never interpreted) and resolves with its stdout once it exits
 * with status 0. An abort kills it (SIGKILL) and rejects with the signal's reason once the process is gone, so
 * the caller may delete its files right away. A failure rejects with an ExternalToolError quoting stderr's tail.
 */
export function runTool(tool: string, args: string[], options: RunToolOptions = {}): Promise<string> {
  const { signal, onStdoutLine } = options;
  return new Promise<string>((resolve, reject) => {
    if (signal?.aborted) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the abort reason as given, as signal.throwIfAborted() throws it: callers recognise their own reason
      reject(signal.reason);
      return;
    }
    const child = spawn(tool, args, { stdio: ["ignore", "pipe", "pipe"], shell: false });
    const stdout: string[] = [];
    let partialLine = "";
    let stderr = "";
    let startError: Error | undefined;

    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdout.push(chunk);
      if (!onStdoutLine) return;
      const lines = (partialLine + chunk).split("\n");
      partialLine = lines.pop() ?? "";
      for (const line of lines) onStdoutLine(line.replace(/\r$/, ""));
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEPT_BYTES);
    });

    const kill = () => child.kill("SIGKILL");
    signal?.addEventListener("abort", kill, { once: true });

    child.on("error", (error) => {
      startError = error;
    });
    child.on("close", (exitCode, killedBy) => {
      signal?.removeEventListener("abort", kill);
      if (onStdoutLine && partialLine) onStdoutLine(partialLine);
      if (signal?.aborted) {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the abort reason as given, as signal.throwIfAborted() throws it: callers recognise their own reason
        reject(signal.reason);
        return;
      }
      if (startError) {
        const code = (startError as NodeJS.ErrnoException).code;
        const reason = code === "ENOENT" ? "is not installed (not found on PATH)" : `could not be started: ${startError.message}`;
        reject(new ExternalToolError(tool, null, [], `${tool} ${reason}`));
        return;
      }
      if (exitCode === 0) {
        resolve(stdout.join(""));
        return;
      }
      const lines = stderr
        .split("\n")
        .map((line) => line.trim())
        .filter(Boolean);
      const quoted = (options.selectErrorLines ?? ((all) => all))(lines).slice(-STDERR_LINES_IN_ERROR);
      const status = exitCode === null ? `was killed by ${killedBy}` : `failed with exit code ${exitCode}`;
      reject(new ExternalToolError(tool, exitCode, quoted, `${tool} ${status}${quoted.length ? `: ${quoted.join(" | ")}` : ""}`));
    });
  });
}
