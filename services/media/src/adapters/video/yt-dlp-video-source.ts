import { spawn } from "node:child_process";
import { mkdtemp, readFile, rename, rm } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { AppError } from "@study/platform/errors";
import type { VideoInfo, VideoSource } from "../../application/ports/video-source.port";
import type { OutboundUrlPolicy } from "../download/outbound-url-policy";
import { formatBytes } from "../download/safe-http-downloader";
import { OutboundPolicyProxy } from "./outbound-policy-proxy";

export interface YtDlpVideoSourceOptions {
  /** Checked before yt-dlp sees a URL (the same policy as the HTTP downloader). */
  policy: OutboundUrlPolicy;
  /** The executable; `yt-dlp` from PATH by default. */
  binary?: string;
  /** Limit for `getInfo`. Default 60 s. */
  infoTimeoutMs?: number;
  /** Limit for `downloadAudio`, download and conversion included. Default 30 min. */
  downloadTimeoutMs?: number;
  /** yt-dlp's `--max-filesize` for the downloaded media; unlimited when absent. */
  maxFileSizeBytes?: number;
  /** yt-dlp's `--socket-timeout`: a stalled connection fails instead of waiting for the overall limit. Default 30 s. */
  socketTimeoutSeconds?: number;
}

/** Grace between SIGTERM and SIGKILL when stopping yt-dlp and its ffmpeg. */
const KILL_GRACE_MS = 2_000;
/** How much of yt-dlp's output is kept: enough for `--dump-json` of a long video, bounded anyway. */
const MAX_OUTPUT_BYTES = 32 * 1024 * 1024;

const stringField = (value: unknown): string | undefined => (typeof value === "string" && value.trim() ? value.trim() : undefined);

/** yt-dlp output templates treat `%` specially; paths must not. */
const templateSafe = (path: string) => path.replace(/%/g, "%%");

/**
 * A video platform through yt-dlp (Debian's 2023.03 build and later): `--dump-json` for metadata and
 * `-x --audio-format mp3` (yt-dlp runs ffmpeg) for the audio track.
 *
 * The URL must first pass the OutboundUrlPolicy, like the HTTP downloader's. yt-dlp resolves names and follows
 * redirects itself, so each run also gets its own OutboundPolicyProxy on loopback (`--proxy`, and the
 * `http_proxy`/`https_proxy` environment for the ffmpeg it starts, `no_proxy` removed): every request yt-dlp
 * or its ffmpeg makes — the page, each redirect, API calls, the media, HTTPS as `CONNECT` — is checked by the
 * policy and connected to the checked address only. A refused request makes yt-dlp fail, and the adapter
 * then reports the policy's own message (`URL not allowed: …`). `--downloader native` keeps downloads in
 * yt-dlp (HLS and DASH included) rather than in external tools (yt-dlp still gives a live HLS stream to
 * ffmpeg, which honours the proxy environment for http and https). What remains outside the proxy is traffic
 * that is not HTTP: a format on rtmp://, rtsp:// or mms:// would go to rtmpdump, mpv/mplayer (the project
 * installs none of them) or ffmpeg, which connect directly; an egress firewall stays the complete answer. yt-dlp runs with `--ignore-config` so no config file on the host changes its behaviour,
 * one video per URL (`--no-playlist --playlist-items 1`), and `--` before the URL.
 *
 * Missing metadata is mapped to neutral values: the file's id as title, duration 0 (unknown; a direct media
 * link carries none — the audio pipeline measures the extracted file), empty description and uploader.
 */
export class YtDlpVideoSource implements VideoSource {
  private readonly binary: string;

  constructor(private readonly options: YtDlpVideoSourceOptions) {
    this.binary = options.binary ?? "yt-dlp";
  }

  async getInfo(url: string, signal?: AbortSignal): Promise<VideoInfo> {
    await this.options.policy.check(url);
    const { stdout } = await this.run(["--dump-json", "--", url], this.options.infoTimeoutMs ?? 60_000, signal);
    const firstLine = stdout.split("\n").find((line) => line.trim().startsWith("{"));
    if (!firstLine) throw new AppError("validation", "VIDEO_UNAVAILABLE", "No video information was found at this URL");
    const info = JSON.parse(firstLine) as Record<string, unknown>;
    const duration = typeof info.duration === "number" && Number.isFinite(info.duration) && info.duration > 0 ? info.duration : 0;
    return {
      title: stringField(info.title) ?? stringField(info.fulltitle) ?? stringField(info.id) ?? "Untitled video",
      duration,
      description: stringField(info.description) ?? "",
      uploader: stringField(info.uploader) ?? stringField(info.channel) ?? stringField(info.uploader_id) ?? stringField(info.creator) ?? "",
    };
  }

  async downloadAudio(url: string, directory: string, signal?: AbortSignal): Promise<string> {
    await this.options.policy.check(url);
    // yt-dlp works in a private folder (partial downloads, the intermediate video, ffmpeg's temp file) that is
    // removed whatever happens; only the finished MP3 moves to `directory`.
    const workDirectory = await mkdtemp(join(resolve(directory), ".yt-dlp-"));
    const printedPathFile = join(workDirectory, "filepath.txt");
    try {
      const { stdout } = await this.run(
        [
          "-x",
          "--audio-format",
          "mp3",
          "-o",
          // The id names the file; a platform's id can be long, so at most 100 characters of it (file names
          // are limited to 255 bytes).
          join(templateSafe(workDirectory), "%(id).100s.%(ext)s"),
          // --print would imply --quiet and hide why a download was skipped; --print-to-file does not.
          "--print-to-file",
          "after_move:filepath",
          templateSafe(printedPathFile),
          ...(this.options.maxFileSizeBytes ? ["--max-filesize", String(this.options.maxFileSizeBytes)] : []),
          "--",
          url,
        ],
        this.options.downloadTimeoutMs ?? 30 * 60_000,
        signal,
      );
      const printed = (await readFile(printedPathFile, "utf8").catch(() => "")).trim().split("\n").pop() ?? "";
      if (!printed) {
        if (/larger than max-filesize/i.test(stdout)) {
          throw new AppError("too_large", "FILE_TOO_LARGE", `The video is larger than the ${formatBytes(this.options.maxFileSizeBytes ?? 0)} limit`);
        }
        throw new AppError("validation", "VIDEO_UNAVAILABLE", "yt-dlp finished without producing an audio file");
      }
      if (dirname(resolve(printed)) !== workDirectory) throw new Error(`yt-dlp wrote its audio outside its folder: ${printed}`);
      const finalPath = join(resolve(directory), basename(printed));
      await rename(printed, finalPath);
      return finalPath;
    } finally {
      await rm(workDirectory, { recursive: true, force: true });
    }
  }

  /**
   * Runs yt-dlp with all of its HTTP(S) traffic through a policy proxy that lives as long as the run. When
   * yt-dlp fails after the proxy refused a request, the refusal is the error (yt-dlp's own message would only
   * say `HTTP Error 403`).
   */
  private async run(args: string[], timeoutMs: number, signal?: AbortSignal): Promise<{ stdout: string; stderr: string }> {
    signal?.throwIfAborted();
    const proxy = await OutboundPolicyProxy.start(this.options.policy);
    try {
      return await this.execute(args, proxy, timeoutMs, signal);
    } catch (error) {
      const refusal = proxy.refusals[0];
      if (refusal && error instanceof AppError && error.code !== "CONNECTION_TIMEOUT" && error.code !== "VIDEO_TOOL_UNAVAILABLE") throw refusal;
      throw error;
    } finally {
      await proxy.close();
    }
  }

  /** Runs yt-dlp in its own process group, so that stopping it also stops the ffmpeg it started. */
  private execute(args: string[], proxy: OutboundPolicyProxy, timeoutMs: number, signal?: AbortSignal): Promise<{ stdout: string; stderr: string }> {
    signal?.throwIfAborted();
    const fullArgs = [
      "--proxy",
      proxy.url,
      "--downloader",
      "native",
      "--ignore-config",
      "--no-playlist",
      "--playlist-items",
      "1",
      "--no-progress",
      "--no-cache-dir",
      "--restrict-filenames",
      "--no-mtime",
      "--socket-timeout",
      String(this.options.socketTimeoutSeconds ?? 30),
      ...args,
    ];
    return new Promise((resolvePromise, reject) => {
      const child = spawn(this.binary, fullArgs, { stdio: ["ignore", "pipe", "pipe"], detached: true, env: proxiedEnvironment(proxy.url) });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let outputBytes = 0;
      const collect = (into: Buffer[]) => (chunk: Buffer) => {
        outputBytes += chunk.length;
        if (outputBytes <= MAX_OUTPUT_BYTES) into.push(chunk);
        else stop();
      };
      child.stdout.on("data", collect(stdout));
      child.stderr.on("data", collect(stderr));

      let stoppedBecause: "timeout" | "abort" | "output" | undefined;
      let killTimer: NodeJS.Timeout | undefined;
      const signalGroup = (name: NodeJS.Signals) => {
        try {
          if (child.pid) process.kill(-child.pid, name);
          // eslint-disable-next-line no-restricted-syntax -- ESRCH: the group is already gone, which is what the signal wanted
        } catch {
          // already gone
        }
      };
      function stop(reason: "timeout" | "abort" | "output" = "output") {
        if (stoppedBecause) return;
        stoppedBecause = reason;
        // Cut yt-dlp's connections at once, whatever it does with SIGTERM.
        void proxy.close();
        signalGroup("SIGTERM");
        killTimer = setTimeout(() => signalGroup("SIGKILL"), KILL_GRACE_MS);
      }
      const timer = setTimeout(() => stop("timeout"), timeoutMs);
      const onAbort = () => stop("abort");
      signal?.addEventListener("abort", onAbort, { once: true });

      let spawnError: Error | undefined;
      child.once("error", (error) => {
        spawnError = error;
      });
      // `close` comes after the process exited and its output ended (also after a spawn error).
      child.once("close", (code) => {
        clearTimeout(timer);
        clearTimeout(killTimer);
        signal?.removeEventListener("abort", onAbort);
        const out = Buffer.concat(stdout).toString("utf8");
        const err = Buffer.concat(stderr).toString("utf8");
        if (spawnError) {
          const missing = (spawnError as NodeJS.ErrnoException).code === "ENOENT";
          return reject(
            new AppError(
              "unavailable",
              "VIDEO_TOOL_UNAVAILABLE",
              missing ? `${this.binary} is not installed` : `${this.binary} could not start: ${spawnError.message}`,
              {
                cause: spawnError,
              },
            ),
          );
        }
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the abort reason as given, as signal.throwIfAborted() throws it: callers recognise their own reason
        if (stoppedBecause === "abort") return reject(signal?.reason);
        if (stoppedBecause === "timeout") {
          return reject(new AppError("timeout", "CONNECTION_TIMEOUT", `The video platform did not answer within ${timeoutMs / 1000} s`));
        }
        if (stoppedBecause === "output") return reject(new Error(`yt-dlp printed more than ${MAX_OUTPUT_BYTES} bytes`));
        if (code !== 0) return reject(ytDlpError(err, code));
        resolvePromise({ stdout: out, stderr: err });
      });
    });
  }
}

const PROXY_VARIABLES = ["http_proxy", "https_proxy", "all_proxy", "no_proxy", "ftp_proxy"];

/**
 * The service's environment for yt-dlp, with every proxy setting replaced by the policy proxy: `--proxy` covers
 * yt-dlp's own requests, these cover the ffmpeg it runs (yt-dlp sets them for ffmpeg as a downloader, but not
 * as a post-processor), and no `no_proxy` may exempt a host.
 */
function proxiedEnvironment(proxyUrl: string): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!PROXY_VARIABLES.includes(name.toLowerCase())) environment[name] = value;
  }
  for (const name of ["http_proxy", "https_proxy"]) {
    environment[name] = proxyUrl;
    environment[name.toUpperCase()] = proxyUrl;
  }
  return environment;
}

/** yt-dlp's last `ERROR:` line, without its bug-report boilerplate, as a validation error the user can act on. */
function ytDlpError(stderr: string, exitCode: number | null): AppError {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  const errorLine = lines.filter((line) => line.startsWith("ERROR:")).pop() ?? lines.pop() ?? `yt-dlp exited with code ${exitCode}`;
  const message = errorLine
    .replace(/^ERROR:\s*/, "")
    .replace(/;\s*please report this issue on\b.*$/is, "")
    .replace(/\s*\(caused by .*\)\s*$/s, "")
    .replace(/^\[[^\]]+\]\s+(?:[^\s:]+:\s+)?/, "")
    .trim();
  if (/^Unsupported URL\b/i.test(message)) {
    return new AppError("validation", "UNSUPPORTED_VIDEO_URL", message, { details: [{ field: "url", message: "no supported video at this URL" }] });
  }
  return new AppError("validation", "VIDEO_UNAVAILABLE", message, { details: [{ field: "url", message }] });
}
