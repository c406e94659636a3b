import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkPage, openApp, signUpThroughApi, type AppBrowser } from "./harness";
import { createCourse, LECTURE, makeRecordings, noteWithTranscript, player, waitForPlaying, type Recordings } from "./notes-helpers";

/**
 * The note page: the recording, its transcript as segments to play from (virtualised for a long lecture), the
 * student's own notes at a second (text, link, file), rename, delete, and another user's note answering not found.
 */
describe("web app: the note page", () => {
  let app: AppBrowser;
  let folder: string;
  let recordings: Recordings;
  let courseId: string;
  let noteId: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "web-note-page-"));
    recordings = await makeRecordings(folder);
    app = await openApp();
    await signUpThroughApi(app, "Nora Notes");
    courseId = await createCourse(app, "English Literature");
    noteId = await noteWithTranscript(app, courseId, recordings.lecture, LECTURE);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it("plays from a segment clicked or chosen with Enter, and highlights the segment being played", async () => {
    const { page } = app;
    await page.goto(app.url(`/notes/${noteId}`));
    await page.getByRole("heading", { level: 1, name: "lecture" }).waitFor();
    await page.getByRole("link", { name: "English Literature" }).waitFor();
    const transcript = page.getByRole("list", { name: /Transcript segments/ });
    for (const segment of LECTURE) await transcript.getByRole("button", { name: new RegExp(segment.text, "i") }).waitFor();
    expect(await player(page)).toMatchObject({ paused: true, src: expect.stringContaining("/api/files/") });
    await checkPage(app, "note");

    const second = transcript.getByRole("button", { name: /unless to be rather cold hearted/i });
    await second.click();
    await waitForPlaying(page, LECTURE[1].start, LECTURE[2].start);
    await transcript.locator('button[aria-current="true"]', { hasText: "unless to be rather" }).waitFor();

    // The keyboard: the list is one tab stop, arrow keys move, Enter plays.
    await second.focus();
    await page.keyboard.press("ArrowDown");
    const third = transcript.getByRole("button", { name: /had he married/i });
    expect(await third.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    await waitForPlaying(page, LECTURE[2].start);
    await transcript.locator('button[aria-current="true"]', { hasText: "had he married" }).waitFor();
    await page.evaluate(() => document.querySelector("audio")?.pause());
  });

  it("opens a link with ?t= playing from that second", async () => {
    const { page } = app;
    await page.goto(app.url(`/notes/${noteId}?t=9`));
    await waitForPlaying(page, 9);
    await page
      .getByRole("list", { name: /Transcript segments/ })
      .locator('button[aria-current="true"]', { hasText: "had he married" })
      .waitFor();
    await page.evaluate(() => document.querySelector("audio")?.pause());
  });

  it("adds the student's notes at the player's second (text, link, file), and plays from a note's second", async () => {
    const { page } = app;
    await page.goto(app.url(`/notes/${noteId}`));
    const notes = page.getByRole("region", { name: "Your notes" });
    await notes.getByText("No notes yet").waitFor();
    // At 0:03, paused.
    await page.evaluate(() => {
      const audio = document.querySelector("audio");
      if (audio) audio.currentTime = 3.2;
    });
    await notes.getByRole("button", { name: "Add note at 0:03" }).waitFor();
    await notes.getByLabel("Note text").fill("Cold hearted is not the same as ill disposed.");
    await notes.getByRole("button", { name: "Add note at 0:03" }).click();
    await notes.getByRole("listitem").filter({ hasText: "Cold hearted is not the same" }).getByRole("button", { name: "Play from 0:03" }).waitFor();

    await page.evaluate(() => {
      const audio = document.querySelector("audio");
      if (audio) audio.currentTime = 9.5;
    });
    // The radio's label is what a person clicks (react-aria keeps the input itself visually hidden).
    await notes.locator("label.radio", { hasText: "Link" }).click();
    expect(await notes.getByRole("radio", { name: "Link" }).isChecked()).toBe(true);
    await notes.getByLabel("Link address").fill("https://en.wikipedia.org/wiki/Sense_and_Sensibility");
    await notes.getByRole("button", { name: "Add link at 0:09" }).click();
    await notes.getByRole("link", { name: "https://en.wikipedia.org/wiki/Sense_and_Sensibility" }).waitFor();

    await page.evaluate(() => {
      const audio = document.querySelector("audio");
      if (audio) audio.currentTime = 12;
    });
    await notes.locator("label.radio", { hasText: "File" }).click();
    await notes.locator('input[type="file"]').setInputFiles(recordings.handout);
    await notes.getByText("handout.txt").waitFor();
    await notes.getByLabel("Description (optional)").fill("Reading list");
    await checkPage(app, "note-user-notes");
    await notes.getByRole("button", { name: "Attach file at 0:12" }).click();
    await notes.getByRole("link", { name: "handout.txt" }).waitFor();
    expect(await notes.getByRole("button", { name: /^Play from/ }).allTextContents()).toEqual(["0:03", "0:09", "0:12"]);

    // The notes are kept: after a reload, in order, and a note's second plays.
    await page.reload();
    await notes.getByRole("link", { name: "handout.txt" }).waitFor();
    await notes.getByRole("button", { name: "Play from 0:09" }).click();
    await waitForPlaying(page, 9);
    await page.evaluate(() => document.querySelector("audio")?.pause());

    await notes.getByRole("button", { name: "Remove the note at 0:09" }).click();
    await notes.getByRole("link", { name: /wikipedia/ }).waitFor({ state: "detached" });
    await checkPage(app, "note-user-notes-saved");
  });

  it("renames the note, then deletes it and goes back to its course", async () => {
    const { page } = app;
    const doomed = await noteWithTranscript(app, courseId, recordings.short, [LECTURE[0]]);
    await page.goto(app.url(`/notes/${doomed}`));
    await page.getByRole("heading", { level: 1, name: "short" }).waitFor();

    await page.getByRole("button", { name: "Rename note" }).click();
    const dialog = page.getByRole("dialog", { name: "Rename the note" });
    await dialog.getByLabel("Title").fill("Chapter 1: the Dashwoods");
    await checkPage(app, "note-rename");
    await dialog.getByLabel("Title").press("Enter");
    await page.getByRole("heading", { level: 1, name: "Chapter 1: the Dashwoods" }).waitFor();
    await dialog.waitFor({ state: "detached" });

    await page.getByRole("button", { name: "Delete note" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Delete this note?" });
    await confirm.getByRole("button", { name: "Delete note" }).click();
    await page.waitForURL(app.url(`/courses/${courseId}`));
    const gone = await app.context.request.get(`${app.apiUrl}/api/notes/${doomed}`);
    expect(gone.status()).toBe(404);
  });

  it("keeps a one-hour lecture's transcript fast: only the segments in view are rendered, End reaches the last", async () => {
    const { page } = app;
    const segments = Array.from({ length: 1500 }, (_, index) => ({
      start: index * 2.4,
      end: index * 2.4 + 2.4,
      text: `Segment ${String(index + 1)} of the long lecture`,
    }));
    const long = await noteWithTranscript(app, courseId, recordings.short, segments, 3600);
    const started = Date.now();
    await page.goto(app.url(`/notes/${long}`));
    const transcript = page.getByRole("list", { name: /Transcript segments/ });
    await transcript.getByRole("button", { name: /Segment 1 of the long lecture/ }).waitFor();
    const usableAfter = Date.now() - started;
    const rendered = await transcript.getByRole("button").count();
    expect(rendered).toBeGreaterThan(3);
    expect(rendered).toBeLessThan(60);
    await transcript.getByRole("button", { name: /Segment 1 of the long lecture/ }).focus();
    await page.keyboard.press("End");
    await transcript.getByRole("button", { name: /Segment 1500 of the long lecture/ }).waitFor();
    expect(await transcript.getByRole("button").count()).toBeLessThan(60);
    await checkPage(app, "note-long-transcript");
    // A figure for the bench (docs), not a test: the note page with 1500 segments, navigation to a usable transcript.
    process.stderr.write(`[note page] 1500 segments usable after ${String(usableAfter)} ms\n`);
  });

  it("answers another user's note with not found", async () => {
    const { page } = app;
    await app.context.clearCookies();
    await signUpThroughApi(app, "Someone Else");
    await page.goto(app.url(`/notes/${noteId}`));
    await page.getByRole("heading", { level: 1, name: "Note not found" }).waitFor();
    await checkPage(app, "note-not-found");
  });
});
