import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { librivoxClip, runFfmpeg, startMediaServer, type LocalMediaServer } from "@study/testkit";
import { OutboundUrlPolicy } from "../../../src/adapters/download/outbound-url-policy";
import { YtDlpVideoSource } from "../../../src/adapters/video/yt-dlp-video-source";

/**
 * What the adapter maps from the metadata yt-dlp's generic extractor finds in a web page (yt-dlp 2023.03.04,
 * Debian's build; the outputs below were checked by hand with `yt-dlp --dump-json` first): a schema.org
 * VideoObject (JSON-LD) gives title, description, uploader (its author) and duration; Open Graph tags give title
 * and description; a bare `<video>` element gives the og:title. The pages and the video are served on loopback.
 */

let workDirectory: string;
let media: LocalMediaServer;

const html =
  (head: string, body = "") =>
  (_request: unknown, response: ServerResponse) =>
    void response
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(`<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`);

beforeAll(async () => {
  workDirectory = await mkdtemp(join(tmpdir(), "yt-dlp-metadata-"));
  const served = join(workDirectory, "served");
  await mkdir(served);
  await runFfmpeg([
    ...["-f", "lavfi", "-i", "color=c=navy:s=160x120:r=10", "-i", librivoxClip("0880")],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", join(served, "lecture.mp4")],
  ]);
  media = await startMediaServer({ root: served });
  const videoObject = {
    "@context": "https://schema.org",
    "@type": "VideoObject",
    name: "Lecture 3: Mitochondria",
    description: "How cells make energy.",
    duration: "PT1M2S",
    uploadDate: "2024-01-01",
    contentUrl: media.urlOf("/lecture.mp4"),
    author: { "@type": "Person", name: "Dr. Hooke" },
  };
  media.route(
    "/json-ld.html",
    html(`<title>Course page</title><script type="application/ld+json">${JSON.stringify(videoObject)}</script>`, "<p>Lecture 3</p>"),
  );
  media.route(
    "/open-graph.html",
    html(
      `<title>Course page</title><meta property="og:title" content="Lecture 5: Membranes"><meta property="og:description" content="What lets things in.">` +
        `<meta property="og:video" content="${media.urlOf("/lecture.mp4")}"><meta property="og:video:type" content="video/mp4">`,
    ),
  );
  media.route(
    "/video-element.html",
    html(
      `<title>Course page</title><meta property="og:title" content="Lecture 4: Ribosomes"><meta property="og:description" content="Where proteins are made.">`,
      `<video src="lecture.mp4" controls></video>`,
    ),
  );
}, 30_000);

afterAll(async () => {
  await media?.close();
  await rm(workDirectory, { recursive: true, force: true });
});

const source = () => new YtDlpVideoSource({ policy: OutboundUrlPolicy.fromSetting(`127.0.0.1:${media.port}`) });

describe("YtDlpVideoSource on web pages (generic extractor)", () => {
  it("maps a JSON-LD VideoObject's name, description, author and duration", async () => {
    expect(await source().getInfo(media.urlOf("/json-ld.html"))).toEqual({
      title: "Lecture 3: Mitochondria",
      description: "How cells make energy.",
      uploader: "Dr. Hooke",
      duration: 62,
    });
  });

  it("extracts the audio of the VideoObject's contentUrl, named after the page", async () => {
    const directory = join(workDirectory, "json-ld-download");
    await mkdir(directory);
    const path = await source().downloadAudio(media.urlOf("/json-ld.html"), directory);
    expect(path).toBe(join(directory, "json-ld.mp3"));
    expect(await readdir(directory)).toEqual(["json-ld.mp3"]);
  });

  it("maps Open Graph title and description; yt-dlp names the site as uploader and gives no duration", async () => {
    expect(await source().getInfo(media.urlOf("/open-graph.html"))).toEqual({
      title: "Lecture 5: Membranes",
      description: "What lets things in.",
      uploader: `127.0.0.1:${media.port}`,
      duration: 0,
    });
  });

  it("takes a <video> element's title from og:title (yt-dlp numbers the page's media entries)", async () => {
    const info = await source().getInfo(media.urlOf("/video-element.html"));
    expect(info).toEqual({
      title: expect.stringMatching(/^Lecture 4: Ribosomes( \(1\))?$/),
      description: "Where proteins are made.",
      uploader: "",
      duration: 0,
    });
  });
});
