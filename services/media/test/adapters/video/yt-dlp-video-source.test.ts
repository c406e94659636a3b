import { execFile } from "node:child_process";
import { mkdir, mkdtemp, open, readdir, rm, stat } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { librivoxClip, runFfmpeg, startMediaServer, type LocalMediaServer } from "@study/testkit";
import { HOST_REFUSED_MESSAGE, OutboundUrlPolicy } from "../../../src/adapters/download/outbound-url-policy";
import { YtDlpVideoSource } from "../../../src/adapters/video/yt-dlp-video-source";
import { detectAudioFormat } from "../../../src/domain/audio-format";
import { appErrorOf as failure } from "@study/testkit/refusal";

const run = promisify(execFile);
/** Real recorded speech shipped by Debian's pocketsphinx-testdata ("he was not an ill disposed young man"). */
const SPEECH = librivoxClip("0880");

let workDirectory: string;
let media: LocalMediaServer;
let speechSeconds: number;
let lectureBytes: number;
let slowRequests = 0;
const openSlowResponses = new Set<ServerResponse>();
let onSecondSlowRequest: (() => void) | undefined;

async function durationOf(path: string): Promise<number> {
  const { stdout } = await run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path]);
  return Number(stdout.trim());
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  workDirectory = await mkdtemp(join(tmpdir(), "yt-dlp-"));
  const served = join(workDirectory, "served");
  await mkdir(served);
  // A lecture "video": a still picture over real speech, H.264 + AAC in MP4.
  await runFfmpeg([
    ...["-f", "lavfi", "-i", "color=c=navy:s=160x120:r=10", "-i", SPEECH],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", join(served, "lecture.mp4")],
  ]);
  speechSeconds = await durationOf(SPEECH);
  lectureBytes = (await stat(join(served, "lecture.mp4"))).size;
  media = await startMediaServer({
    root: served,
    routes: {
      "/page.html": (_request, response) =>
        void response
          .writeHead(200, { "content-type": "text/html" })
          .end("<html><head><title>Course page</title></head><body>No media here.</body></html>"),
      // Looks like a video, then stalls after a few bytes: for cancellation and time limits.
      "/slow.mp4": (_request, response) => {
        slowRequests++;
        openSlowResponses.add(response);
        response.once("close", () => openSlowResponses.delete(response));
        response.writeHead(200, { "content-type": "video/mp4", "content-length": 50 * 1024 * 1024 });
        response.write(Buffer.alloc(16 * 1024));
        if (slowRequests === 2) onSecondSlowRequest?.();
      },
    },
  });
}, 30_000);

afterAll(async () => {
  await media?.close();
  await rm(workDirectory, { recursive: true, force: true });
});

const allowMedia = () => OutboundUrlPolicy.fromSetting(`127.0.0.1:${media.port}`);

describe("YtDlpVideoSource", () => {
  it("reads a direct media URL's information through yt-dlp's generic extractor", async () => {
    // Verified by hand: for a direct file the generic extractor reports id and title from the file name
    // ("lecture") and no duration, description or uploader.
    const info = await new YtDlpVideoSource({ policy: allowMedia() }).getInfo(media.urlOf("/lecture.mp4"));
    expect(info).toEqual({ title: "lecture", duration: 0, description: "", uploader: "" });
  });

  it("extracts the audio track as MP3 into the directory, leaving nothing else there", async () => {
    // A folder name that would be an output template if yt-dlp were given it unescaped.
    const directory = join(workDirectory, "job-%(id)s");
    await mkdir(directory);
    const path = await new YtDlpVideoSource({ policy: allowMedia() }).downloadAudio(media.urlOf("/lecture.mp4"), directory);
    expect(path).toBe(join(directory, "lecture.mp3"));
    expect(await readdir(directory)).toEqual(["lecture.mp3"]);
    const handle = await open(path, "r");
    const head = Buffer.alloc(4096);
    await handle.read(head, 0, head.length, 0);
    await handle.close();
    expect(detectAudioFormat(head)).toBe("mp3");
    expect(Math.abs((await durationOf(path)) - speechSeconds)).toBeLessThan(0.2);
  });

  it("checks the URL against the download policy before running yt-dlp", async () => {
    // A binary that does not exist: reaching it would fail with VIDEO_TOOL_UNAVAILABLE instead.
    const source = new YtDlpVideoSource({ policy: OutboundUrlPolicy.fromSetting(""), binary: "/nonexistent/yt-dlp" });
    const before = media.requests.length;
    const refused = await failure(source.getInfo(media.urlOf("/lecture.mp4")));
    expect(refused).toMatchObject({ kind: "validation", code: "URL_NOT_ALLOWED" });
    expect(refused.message).toBe(HOST_REFUSED_MESSAGE);
    expect(await failure(source.downloadAudio(`http://localhost:${media.port}/lecture.mp4`, workDirectory))).toMatchObject({
      code: "URL_NOT_ALLOWED",
    });
    expect(media.requests.length).toBe(before);
  });

  it("reports a missing video with yt-dlp's message", async () => {
    const error = await failure(new YtDlpVideoSource({ policy: allowMedia() }).getInfo(media.urlOf("/gone.mp4")));
    expect(error).toMatchObject({ kind: "validation", code: "VIDEO_UNAVAILABLE", message: "Unable to download webpage: HTTP Error 404: Not Found" });
  });

  it("reports a page without a video as an unsupported URL", async () => {
    const url = media.urlOf("/page.html");
    const error = await failure(new YtDlpVideoSource({ policy: allowMedia() }).getInfo(url));
    expect(error).toMatchObject({ kind: "validation", code: "UNSUPPORTED_VIDEO_URL", message: `Unsupported URL: ${url}` });
  });

  it("refuses a video over the size limit", async () => {
    const directory = await mkdtemp(join(workDirectory, "job-"));
    const source = new YtDlpVideoSource({ policy: allowMedia(), maxFileSizeBytes: Math.floor(lectureBytes / 2) });
    const error = await failure(source.downloadAudio(media.urlOf("/lecture.mp4"), directory));
    expect(error).toMatchObject({
      kind: "too_large",
      code: "FILE_TOO_LARGE",
      message: expect.stringMatching(/^The video is larger than the [\d.]+ KB limit$/),
    });
    expect(await readdir(directory)).toEqual([]);
  });

  it("stops yt-dlp mid-download when the signal aborts, and cleans up", async () => {
    slowRequests = 0;
    const directory = await mkdtemp(join(workDirectory, "job-"));
    const controller = new AbortController();
    const reason = new Error("import cancelled");
    // The generic extractor requests the URL once to identify it and again to download it.
    onSecondSlowRequest = () => setTimeout(() => controller.abort(reason), 100);
    const fallback = setTimeout(() => controller.abort(reason), 8_000);
    try {
      await expect(new YtDlpVideoSource({ policy: allowMedia() }).downloadAudio(media.urlOf("/slow.mp4"), directory, controller.signal)).rejects.toBe(
        reason,
      );
    } finally {
      clearTimeout(fallback);
      onSecondSlowRequest = undefined;
    }
    expect(slowRequests).toBe(2);
    expect(await readdir(directory)).toEqual([]);
    // The killed process's connection closes with it.
    await until(() => openSlowResponses.size === 0, 3_000);
  });

  it("stops yt-dlp at the time limit", async () => {
    const directory = await mkdtemp(join(workDirectory, "job-"));
    const source = new YtDlpVideoSource({ policy: allowMedia(), downloadTimeoutMs: 1_500 });
    const started = Date.now();
    const error = await failure(source.downloadAudio(media.urlOf("/slow.mp4"), directory));
    expect(error).toMatchObject({ kind: "timeout", code: "CONNECTION_TIMEOUT", message: "The video platform did not answer within 1.5 s" });
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(await readdir(directory)).toEqual([]);
    await until(() => openSlowResponses.size === 0, 3_000);
  });

  it("says so when yt-dlp is not installed", async () => {
    const source = new YtDlpVideoSource({ policy: allowMedia(), binary: "/nonexistent/yt-dlp" });
    const error = await failure(source.getInfo(media.urlOf("/lecture.mp4")));
    expect(error).toMatchObject({ kind: "unavailable", code: "VIDEO_TOOL_UNAVAILABLE", message: "/nonexistent/yt-dlp is not installed" });
  });
});
