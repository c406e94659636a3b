import { mkdtemp, readFile, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { sharedTestStack } from "@study/testkit";
import type { CDPSession, Page } from "playwright-core";
import { checkPage, openApp, signUpThroughApi, type AppBrowser } from "./harness";
import { createCourse, makeRecordings, type Recordings } from "./notes-helpers";

/**
 * Importing a note in the browser: an uploaded recording (file button and drag and drop, with upload progress), an
 * audio link and a video link, each followed live through its job's stages until the note is ready; a failing
 * import's message; cancelling an upload and an import.
 *
 * Audio and video links are downloaded by media's worker from the shared stack's allow-listed media server, where
 * this file writes its recordings.
 */
describe("web app: importing notes", () => {
  let served: { urlOf(path: string): string };
  let folder: string;
  let recordings: Recordings;
  let app: AppBrowser;
  let courseId: string;

  beforeAll(async () => {
    // Recordings in a folder of this file's on the shared stack's allow-listed media server.
    const { mediaServer } = sharedTestStack();
    folder = await mkdtemp(join(mediaServer.root, "web-notes-import-"));
    recordings = await makeRecordings(folder);
    served = { urlOf: (path) => `${mediaServer.url}/${basename(folder)}${path}` };
    app = await openApp();
    await signUpThroughApi(app, "Ivy Importer");
    courseId = await createCourse(app, "Victorian Novels");
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  const openImportPage = async (page: Page) => {
    await page.goto(app.url(`/courses/${courseId}/notes/new`));
    await page.getByRole("heading", { level: 1, name: "Add a note" }).waitFor();
    await page.getByRole("link", { name: "Victorian Novels" }).waitFor();
  };

  /** The import's entry in the list (a list item named by its heading). */
  const importItem = (page: Page, name: string | RegExp) => page.getByRole("listitem", { name });

  /** Uploads at `bytesPerSecond`, so that a test sees the progress of a small file (Chromium's own throttling). */
  async function throttleUploads(page: Page, bytesPerSecond: number): Promise<CDPSession> {
    const session = await page.context().newCDPSession(page);
    await session.send("Network.enable");
    await session.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond });
    return session;
  }

  const unthrottle = async (session: CDPSession) => {
    await session.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await session.detach();
  };

  /** Waits until a progress bar shows a value strictly between 0 and 100 (the upload is under way). */
  const partway = (page: Page, label: string) =>
    page.waitForFunction((name) => {
      const bar = [...document.querySelectorAll('[role="progressbar"]')].find((element) => {
        const labelledBy = element.getAttribute("aria-labelledby") ?? "";
        return labelledBy
          .split(" ")
          .map((id) => document.getElementById(id)?.textContent ?? "")
          .includes(name);
      });
      const value = Number(bar?.getAttribute("aria-valuenow"));
      return value > 0 && value < 100;
    }, label);

  it("uploads a recording chosen with the file button: upload progress, then the job's stages live until the note with its transcript", async () => {
    const { page } = app;
    await openImportPage(page);
    await page.getByRole("tab", { name: "Upload a recording", selected: true }).waitFor();
    await page.getByText("Nothing imported yet").waitFor();
    await checkPage(app, "import-note");

    const throttle = await throttleUploads(page, 48 * 1024);
    await page.locator('input[type="file"]').setInputFiles(recordings.lecture);
    const item = importItem(page, "lecture.mp3");
    await partway(page, "Uploading lecture.mp3");
    await item.getByRole("button", { name: "Cancel upload" }).waitFor();
    await checkPage(app, "import-uploading");
    await unthrottle(throttle);

    // The job's stages, as its event stream reports them.
    const lecture = importItem(page, "lecture");
    await lecture.getByRole("progressbar", { name: "Import progress" }).waitFor();
    await lecture
      .getByRole("status")
      .filter({ hasText: /^Transcribing… \d+ %$/ })
      .waitFor({ timeout: 60_000 });
    await lecture.getByRole("listitem").filter({ hasText: "Transcribing (in progress)" }).waitFor();
    await lecture.getByRole("listitem").filter({ hasText: "Preparing the audio (done)" }).waitFor();
    await lecture.getByRole("button", { name: "Cancel import" }).waitFor();
    await checkPage(app, "import-transcribing");
    await lecture.getByRole("status").filter({ hasText: "Done: the note is ready." }).waitFor({ timeout: 60_000 });
    await checkPage(app, "import-done");

    await lecture.getByRole("link", { name: "Open the note" }).click();
    await page.getByRole("heading", { level: 1, name: "lecture" }).waitFor();
    await page
      .getByRole("list", { name: /Transcript segments/ })
      .getByRole("button", { name: /disposed|young|selfish|married/i })
      .first()
      .waitFor();
    await checkPage(app, "import-note-page");
  }, 120_000);

  it("uploads a recording dropped on the drop zone, and cancels an upload under way", async () => {
    const { page } = app;
    await openImportPage(page);
    const bytes = (await readFile(recordings.short)).toString("base64");
    const dropped = await page.evaluateHandle(
      ({ name, base64 }) => {
        // A file dropped from the desktop comes with its file-system entry, which react-aria's DropZone reads
        // (webkitGetAsEntry) to tell files from folders; a File a script puts in a DataTransfer has none, so the
        // test gives it the entry a real drop of that file would have.
        const prototype = DataTransferItem.prototype as DataTransferItem & { testEntry?: boolean };
        if (!prototype.testEntry) {
          const original = prototype.webkitGetAsEntry;
          prototype.webkitGetAsEntry = function (this: DataTransferItem) {
            const entry = original.call(this);
            const file = this.kind === "file" ? this.getAsFile() : null;
            return entry ?? (file ? ({ isFile: true, isDirectory: false, name: file.name } as FileSystemEntry) : null);
          };
          prototype.testEntry = true;
        }
        const transfer = new DataTransfer();
        transfer.items.add(new File([Uint8Array.from(atob(base64), (character) => character.charCodeAt(0))], name, { type: "audio/wav" }));
        return transfer;
      },
      { name: basename(recordings.short), base64: bytes },
    );
    const zone = page.locator(".drop-zone");
    await zone.dispatchEvent("dragenter", { dataTransfer: dropped });
    await zone.dispatchEvent("dragover", { dataTransfer: dropped });
    await zone.dispatchEvent("drop", { dataTransfer: dropped });
    const short = importItem(page, "short");
    await short.getByRole("status").filter({ hasText: "Done: the note is ready." }).waitFor({ timeout: 60_000 });
    await short.getByRole("link", { name: "Open the note" }).waitFor();

    // A slow upload, cancelled: nothing reaches the API.
    const throttle = await throttleUploads(page, 16 * 1024);
    await page.locator('input[type="file"]').setInputFiles(recordings.long);
    const long = importItem(page, "long.mp3");
    await partway(page, "Uploading long.mp3");
    await long.getByRole("button", { name: "Cancel upload" }).click();
    await long.getByRole("status").filter({ hasText: "Upload cancelled: nothing was kept." }).waitFor();
    await unthrottle(throttle);
    await checkPage(app, "import-upload-cancelled");
    const notes = await app.context.request.get(`${app.apiUrl}/api/courses/${courseId}/notes`);
    const titles = ((await notes.json()) as { data: { title: string }[] }).data.map((note) => note.title);
    expect(titles).not.toContain("long");
  }, 120_000);

  it("imports an audio link, live until the note is ready", async () => {
    const { page } = app;
    await openImportPage(page);
    await page.getByRole("tab", { name: "Audio link" }).click();
    await page.getByLabel("Link to the audio file").fill(served.urlOf("/lecture.mp3"));
    await checkPage(app, "import-audio-link");
    await page.getByRole("button", { name: "Import audio" }).click();
    const item = importItem(page, /lecture/);
    await item.getByRole("progressbar", { name: "Import progress" }).waitFor();
    await item.getByRole("status").filter({ hasText: "Done: the note is ready." }).waitFor({ timeout: 60_000 });
    await item.getByRole("listitem").filter({ hasText: "Saving the note (done)" }).waitFor();
    await item.getByRole("link", { name: "Open the note" }).click();
    await page
      .getByRole("list", { name: /Transcript segments/ })
      .getByRole("button")
      .first()
      .waitFor();
  }, 90_000);

  it("imports a video link, live until the note is ready", async () => {
    const { page } = app;
    await openImportPage(page);
    await page.getByRole("tab", { name: "Video link" }).click();
    await page.getByLabel("Link to the video").fill(served.urlOf("/lecture.mp4"));
    await page.getByRole("button", { name: "Import video" }).click();
    const item = importItem(page, /lecture/);
    await item.getByText(`Video link: ${served.urlOf("/lecture.mp4")}`).waitFor();
    await item.getByRole("status").filter({ hasText: "Done: the note is ready." }).waitFor({ timeout: 60_000 });
    await checkPage(app, "import-video-done");
  }, 90_000);

  it("shows a failing import's message, and a link the API refuses as its sentence", async () => {
    const { page } = app;
    await openImportPage(page);
    await page.getByRole("tab", { name: "Audio link" }).click();
    await page.getByLabel("Link to the audio file").fill(served.urlOf("/broken.mp3"));
    await page.getByRole("button", { name: "Import audio" }).click();
    const item = importItem(page, /broken/);
    await item
      .getByRole("alert")
      .filter({ hasText: /^Unsupported audio format/ })
      .waitFor({ timeout: 60_000 });
    await item.getByRole("status").filter({ hasText: "The import failed." }).waitFor();
    await checkPage(app, "import-failed");

    // A host the service may not download from: refused at once, the API's sentence under the form.
    await page.getByLabel("Link to the audio file").fill("http://127.0.0.1:9/lecture.mp3");
    await page.getByRole("button", { name: "Import audio" }).click();
    await page.getByText(/^URL not allowed/).waitFor();
    expect(await page.getByLabel("Link to the audio file").getAttribute("aria-invalid")).toBe("true");
  }, 90_000);

  it("cancels an import while it runs", async () => {
    const { page } = app;
    await openImportPage(page);
    // Standard speed: a longer transcription, to cancel in the middle of.
    await page.locator("label.radio", { hasText: "Standard speed" }).click();
    await page.getByRole("tab", { name: "Audio link" }).click();
    await page.getByLabel("Link to the audio file").fill(served.urlOf("/long.mp3"));
    await page.getByRole("button", { name: "Import audio" }).click();
    const item = importItem(page, /long/);
    await item
      .getByRole("status")
      .filter({ hasText: /^(Preparing the audio|Transcribing)… \d+ %$/ })
      .waitFor({ timeout: 60_000 });
    await item.getByRole("button", { name: "Cancel import" }).click();
    await item.getByRole("status").filter({ hasText: "Import cancelled." }).waitFor();
    await item.getByRole("button", { name: "Cancel import" }).waitFor({ state: "detached" });
    await checkPage(app, "import-cancelled");
  }, 90_000);
});
