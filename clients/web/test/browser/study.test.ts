import { readFileSync } from "node:fs";
import type { Locator, Page } from "playwright-core";
import { checkPage, openApp, signUpThroughApi, type AppBrowser } from "./harness";
import { courseWithLecture, LECTURE, type LectureNote } from "./study-helpers";

/** Seconds of a "from 12:04 in …" link's words. */
function secondsOf(words: string): number {
  const clock = /from (?:(\d+):)?(\d+):(\d\d) in /.exec(words);
  if (!clock) throw new Error(`no time in "${words}"`);
  return Number(clock[1] ?? 0) * 3600 + Number(clock[2]) * 60 + Number(clock[3]);
}

/** Checks a checkbox or chooses a radio button from the keyboard (react-aria draws them over the hidden input). */
async function choose(control: Locator): Promise<void> {
  await control.focus();
  if (!(await control.isChecked())) await control.press("Space");
  if (!(await control.isChecked())) throw new Error("the control did not get checked");
}

/**
 * Study material in the browser: generating flashcards, a quiz and a study guide from a transcribed lecture,
 * reviewing a set from the keyboard while the due queue empties, taking the quiz, reading the guide, exporting
 * the set, following a source link to the second it came from, and deleting material.
 */
describe("web app: study material", () => {
  let app: AppBrowser;
  let page: Page;
  let lecture: LectureNote;
  const made = { setPath: "", quizPath: "", guidePath: "" };

  beforeAll(async () => {
    app = await openApp();
    page = app.page;
    await signUpThroughApi(app);
    lecture = await courseWithLecture(app);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
  });

  /** On /study: the course, the lecture, the kind of material; then generate and land on the new item's page. */
  async function generate(kind: "Flashcards" | "Quiz" | "Study guide", path: RegExp): Promise<string> {
    await page.goto(app.url("/study"));
    await page.getByRole("heading", { name: "Make study material" }).waitFor();
    await page.getByRole("button", { name: /Course/ }).click();
    await page.getByRole("option", { name: lecture.courseName }).click();
    await choose(page.getByRole("checkbox", { name: new RegExp(lecture.title) }));
    await choose(page.getByRole("radio", { name: kind, exact: true }));
    const button = page.getByRole("button", { name: `Generate ${kind.toLowerCase()}` });
    await button.click();
    await page.waitForURL(path);
    return new URL(page.url()).pathname.replace(/^\/app/, "");
  }

  it("shows what there is to study, then generates flashcards, a quiz and a study guide from a lecture", async () => {
    await page.goto(app.url("/study"));
    await page.getByRole("heading", { name: "Study", exact: true }).waitFor();
    await page.getByText("No flashcard sets yet.").waitFor();
    await page.getByText("No quizzes yet.").waitFor();
    await page.getByText("No study guides yet.").waitFor();
    await page.getByRole("button", { name: /Course/ }).click();
    await page.getByRole("option", { name: lecture.courseName }).click();
    await page.getByRole("checkbox", { name: new RegExp(lecture.title) }).waitFor();
    // Nothing chosen yet: nothing to generate from.
    expect(await page.getByRole("button", { name: "Generate flashcards" }).isDisabled()).toBe(true);
    await checkPage(app, "study");

    made.setPath = await generate("Flashcards", /\/study\/flashcards\/[\w-]+$/);
    await page
      .getByRole("status")
      .filter({ hasText: /Flashcards generated/ })
      .waitFor();
    await page.getByRole("link", { name: "Study this set" }).waitFor();
    await page.getByRole("heading", { name: "Cards", exact: true }).waitFor();
    await checkPage(app, "flashcard-set");

    made.quizPath = await generate("Quiz", /\/study\/quizzes\/[\w-]+$/);
    await page.getByRole("button", { name: "Submit answers" }).waitFor();

    made.guidePath = await generate("Study guide", /\/study\/guides\/[\w-]+$/);
    await page.getByRole("heading", { name: "Overview" }).waitFor();

    // The lists have them now.
    await page.goto(app.url("/study"));
    await page
      .getByRole("link", { name: /cards|flashcards/i })
      .first()
      .waitFor();
    for (const path of [made.setPath, made.quizPath, made.guidePath]) {
      await page.locator(`a[href="/app${path}"]`).waitFor();
    }
  });

  it("links every card to the second of the lecture it came from, and the link opens the note there", async () => {
    await page.goto(app.url(made.setPath));
    await page.getByRole("heading", { name: "Cards", exact: true }).waitFor();
    const links = page.getByRole("link", { name: new RegExp(`^from \\d+:\\d\\d in ${lecture.title}$`) });
    await links.first().waitFor();
    const cards = await page.locator("ol.cards > li").count();
    expect(await links.count()).toBe(cards);
    const starts = LECTURE.map((segment) => segment.start);
    for (const link of await links.all()) {
      const words = (await link.textContent()) ?? "";
      const second = secondsOf(words);
      expect(starts).toContain(second);
      expect(await link.getAttribute("href")).toBe(`/app/notes/${lecture.noteId}?t=${second}`);
    }
    const first = links.first();
    const second = secondsOf((await first.textContent()) ?? "");
    await first.click();
    await page.waitForURL((url) => url.pathname === `/app/notes/${lecture.noteId}` && url.searchParams.get("t") === String(second));
    await page.getByRole("heading", { level: 1, name: lecture.title }).waitFor();
    await checkPage(app, "note-from-source-link");
  });

  it("exports the set for Anki and as CSV", async () => {
    await page.goto(app.url(made.setPath));
    await page.getByRole("heading", { name: "Cards", exact: true }).waitFor();
    const front = (await page.locator("ol.cards > li dd").first().textContent()) ?? "";
    expect(front.length).toBeGreaterThan(0);

    const [apkg] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download for Anki (.apkg)" }).click()]);
    expect(apkg.suggestedFilename()).toMatch(/\.apkg$/);
    const packageBytes = readFileSync(await apkg.path());
    // An Anki package is a zip archive.
    expect(packageBytes.subarray(0, 2).toString("latin1")).toBe("PK");

    const [csv] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download as CSV" }).click()]);
    expect(csv.suggestedFilename()).toMatch(/\.csv$/);
    const rows = readFileSync(await csv.path(), "utf8");
    expect(rows).toContain(front.replace(/"/g, '""'));
    await checkPage(app, "flashcard-set-exported");
  });

  it("reviews a set from the keyboard, each rating showing its interval, while the due queue empties", async () => {
    await page.goto(app.url("/review"));
    await page.getByRole("heading", { name: "Review", exact: true }).waitFor();
    const dueLine = page.getByRole("status").filter({ hasText: /^\d+ cards? due/ });
    const dueAtFirst = Number(/^(\d+)/.exec((await dueLine.textContent()) ?? "")?.[1]);
    expect(dueAtFirst).toBeGreaterThan(1);

    // One card here in the queue across sets: Space shows the answer, 3 rates it Good.
    await page.keyboard.press("Space");
    const good = page.getByRole("button", { name: /^Good in / });
    await good.waitFor();
    for (const name of ["Again", "Hard", "Good", "Easy"]) {
      expect(await page.getByRole("button", { name: new RegExp(`^${name} in (\\d+ min|under a minute|\\d+ (hour|day|month)s?)`) }).count()).toBe(1);
    }
    await checkPage(app, "review");
    await page.keyboard.press("3");
    await page
      .getByRole("status")
      .filter({ hasText: `${dueAtFirst - 1} ${dueAtFirst - 1 === 1 ? "card" : "cards"} due` })
      .waitFor();

    // The rest through the set's own session, all from the keyboard.
    await page.goto(app.url(made.setPath));
    await page.getByRole("link", { name: "Study this set" }).click();
    await page.getByRole("button", { name: "Show answer" }).waitFor();
    const done = page.getByText(/^All done: you reviewed \d+ cards? and nothing else is due now\.$/);
    let reviewed = 0;
    while (!(await done.isVisible())) {
      await page.getByRole("button", { name: "Show answer" }).waitFor();
      await page.keyboard.press("Space");
      await page.getByRole("button", { name: /^Easy in / }).waitFor();
      // Good and Easy in turn: neither brings a card back within the test.
      await page.keyboard.press(reviewed % 2 === 0 ? "4" : "3");
      reviewed += 1;
      await page.getByRole("button", { name: "Show answer" }).or(done).waitFor();
    }
    expect(reviewed).toBe(dueAtFirst - 1);
    await page.getByText(`All done: you reviewed ${reviewed} ${reviewed === 1 ? "card" : "cards"}`).waitFor();
    await checkPage(app, "review-done");

    await page.getByRole("link", { name: "Review", exact: true }).click();
    await page.getByText("Nothing is due for review now.").waitFor();
  });

  it("takes the quiz and shows the score with each question's explanation", async () => {
    const quizId = made.quizPath.split("/").at(-1) ?? "";
    const answer = await app.context.request.get(`${app.apiUrl}/api/quizzes/${quizId}`);
    const quiz = ((await answer.json()) as { data: { questions: { question: string; options: string[]; correctAnswer: string; order: number }[] } })
      .data;
    const questions = [...quiz.questions].sort((a, b) => a.order - b.order);
    expect(questions.length).toBeGreaterThan(1);

    await page.goto(app.url(made.quizPath));
    await page.getByRole("button", { name: "Submit answers" }).waitFor();
    await page.getByText("No attempts yet").waitFor();
    await checkPage(app, "quiz");
    // The first question answered wrongly, the others rightly, each a labelled radio group.
    for (const [index, question] of questions.entries()) {
      const group = page.getByRole("radiogroup", { name: `${index + 1}. ${question.question}` });
      const choice = index === 0 ? question.options.find((option) => option !== question.correctAnswer) : question.correctAnswer;
      await choose(group.getByRole("radio", { name: choice, exact: true }));
    }
    await page.getByRole("button", { name: "Submit answers" }).click();
    await page.getByRole("heading", { name: "Your score" }).waitFor();
    const total = questions.length;
    await page
      .getByText(`${total - 1} of ${total} correct (${Math.round(((total - 1) / total) * 100)}%)`)
      .first()
      .waitFor();
    expect(await page.getByText("Correct.", { exact: true }).count()).toBe(total - 1);
    expect(await page.getByText("Incorrect.", { exact: true }).count()).toBe(1);
    await page.getByText(`The answer is: ${questions[0].correctAnswer}`).waitFor();
    // The attempt is kept.
    await page
      .getByRole("region", { name: "Your attempts" })
      .getByText(`${total - 1} of ${total} correct`)
      .waitFor();
    await checkPage(app, "quiz-scored");
  });

  it("renders the study guide from Markdown, with where each section comes from", async () => {
    await page.goto(app.url(made.guidePath));
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await page.getByRole("heading", { name: "Where each section comes from" }).waitFor();
    // The page's heading is the guide's title; the Markdown's own title is not repeated.
    expect(await page.getByRole("heading", { level: 1 }).allTextContents()).toEqual([await page.locator("main h1").textContent()]);
    expect(await page.locator(".markdown h1").count()).toBe(0);
    const link = page.getByRole("link", { name: new RegExp(`^from \\d+:\\d\\d in ${lecture.title}$`) }).first();
    const second = secondsOf((await link.textContent()) ?? "");
    expect(await link.getAttribute("href")).toBe(`/app/notes/${lecture.noteId}?t=${second}`);
    await checkPage(app, "study-guide");
  });

  it("says so in the API's words when material does not exist", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    for (const [path, words] of [
      [`/study/flashcards/${missing}`, /flashcard set/i],
      [`/study/quizzes/${missing}`, /quiz/i],
      [`/study/guides/${missing}`, /study guide/i],
    ] as const) {
      await page.goto(app.url(path));
      await page
        .getByRole("alert")
        .filter({ hasText: words })
        .filter({ hasText: /not found/i })
        .waitFor();
      await page.getByRole("button", { name: "Try again" }).waitFor();
    }
    await checkPage(app, "study-not-found");
  });

  it("deletes material after asking", async () => {
    await page.goto(app.url("/study"));
    const guideLink = page.locator(`a[href="/app${made.guidePath}"]`);
    const title = (await guideLink.textContent()) ?? "";
    await page.getByRole("button", { name: `Delete ${title}` }).click();
    const dialog = page.getByRole("alertdialog");
    await dialog.getByRole("button", { name: "Delete" }).click();
    await page.getByText("No study guides yet.").waitFor();
    await guideLink.waitFor({ state: "detached" });
    await checkPage(app, "study-after-delete");
  });
});
