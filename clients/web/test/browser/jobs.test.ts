import { eventually } from "@study/testkit";
import type { Page } from "playwright-core";
import { checkPage, openApp, signUpThroughApi, type AppBrowser } from "./harness";
import { cancelledImport, completedImport, createCourse, failedImport, importUnderWay } from "./jobs-helpers";

/** The summary's figures, by their names. */
async function statsOf(page: Page): Promise<Record<string, string>> {
  const summary = page.getByRole("region", { name: "Summary" });
  const names = await summary.getByRole("term").allInnerTexts();
  const values = await summary.getByRole("definition").allInnerTexts();
  return Object.fromEntries(names.map((name, index) => [name, values[index] ?? ""]));
}

/** Picks an option of one of the list's selects (Status, Source, Order), opening it from the keyboard. */
async function choose(page: Page, select: string, option: string): Promise<void> {
  await page.getByRole("button", { name: new RegExp(`${select}$`) }).focus();
  await page.keyboard.press("Enter");
  await page.getByRole("option", { name: option, exact: true }).click();
  await page.getByRole("listbox").waitFor({ state: "detached" });
}

const jobTitles = (page: Page) => page.getByRole("list").getByRole("heading", { level: 3 }).allInnerTexts();

/** The imports page: the summary, filters by status, orders, pages, cancel, delete, retry and why an import failed. */
describe("web app: imports", () => {
  let app: AppBrowser;

  beforeAll(async () => {
    app = await openApp();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  it("lists imports by status and order, page by page; cancels, retries and deletes them", async () => {
    const { page } = app;
    await signUpThroughApi(app);
    await page.goto(app.url("/jobs"));
    await page.getByRole("heading", { name: "Imports", exact: true }).waitFor();
    await page.getByText("No imports yet.").waitFor();
    await page.getByText("None finished yet").waitFor();
    await checkPage(app, "jobs-empty");

    // 18 cancelled imports, then one completed, one failed by the worker and one under way: 21, two pages.
    const courseId = await createCourse(app, { name: "Statistics" });
    for (let index = 1; index <= 18; index++) await cancelledImport(app, courseId, `Old import ${String(index).padStart(2, "0")}`);
    const completed = await completedImport(app, courseId, "Week 1 lecture");
    const failed = await failedImport(app, courseId, "Week 2 lecture");
    await importUnderWay(app, courseId, "Week 3 lecture", 40);

    await page.reload();
    await page.getByRole("heading", { name: "Week 3 lecture" }).waitFor();
    expect(await statsOf(page)).toEqual({
      "All imports": "21",
      Waiting: "0",
      "In progress": "1",
      Completed: "1",
      Failed: "1",
      Cancelled: "18",
      "Success rate": "50 %",
    });
    // Newest first, 20 to a page.
    expect((await jobTitles(page)).slice(0, 4)).toEqual(["Week 3 lecture", "Week 2 lecture", "Week 1 lecture", "Old import 18"]);
    expect(await jobTitles(page)).toHaveLength(20);
    await page.getByText("Page 1 of 2").waitFor();
    await checkPage(app, "jobs");
    await page.getByRole("button", { name: "Next page" }).click();
    await page.getByText("Page 2 of 2").waitFor();
    await eventually(async () => JSON.stringify(await jobTitles(page)) === JSON.stringify(["Old import 01"]));
    await page.getByRole("button", { name: "Previous page" }).click();
    await page.getByText("Page 1 of 2").waitFor();

    await choose(page, "Order", "Oldest first");
    await eventually(async () => (await jobTitles(page))[0] === "Old import 01");
    expect(new URL(page.url()).searchParams.get("sort")).toBe("oldest");

    // Failed: why, and the way to its note.
    await choose(page, "Status", "Failed");
    await eventually(async () => JSON.stringify(await jobTitles(page)) === JSON.stringify(["Week 2 lecture"]));
    const failedItem = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Week 2 lecture" }) });
    await failedItem.getByText(/Why it failed: Unsupported audio format/).waitFor();
    expect(await failedItem.getByRole("link", { name: "Week 2 lecture" }).getAttribute("href")).toBe(`/app/notes/${failed.noteId}`);
    expect(await page.getByRole("button", { name: /^Cancel import/ }).count()).toBe(0);
    await checkPage(app, "jobs-failed");

    // Under way: its progress, and cancelling it.
    await choose(page, "Status", "In progress");
    const progress = page.getByRole("progressbar", { name: "Progress of “Week 3 lecture”" });
    await progress.waitFor();
    expect(await progress.getAttribute("aria-valuenow")).toBe("40");
    await page.getByRole("button", { name: "Cancel import “Week 3 lecture”" }).click();
    await page.getByRole("status").filter({ hasText: "Cancelled the import “Week 3 lecture”." }).waitFor();
    await page.getByText("No imports match these filters.").waitFor();
    await eventually(async () => (await statsOf(page)).Cancelled === "19");
    await checkPage(app, "jobs-none-match");

    await choose(page, "Status", "Cancelled");
    await page.getByRole("heading", { name: "Week 3 lecture" }).waitFor();

    // Completed: deleting it asks first.
    await choose(page, "Status", "Completed");
    await page.getByRole("heading", { name: "Week 1 lecture" }).waitFor();
    await page.getByRole("button", { name: "Delete import “Week 1 lecture”" }).click();
    const dialog = page.getByRole("alertdialog", { name: "Delete the import “Week 1 lecture”?" });
    await dialog.waitFor();
    await checkPage(app, "jobs-delete");
    await dialog.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("status").filter({ hasText: "Deleted the import “Week 1 lecture”." }).waitFor();
    await page.getByText("No imports match these filters.").waitFor();
    expect((await app.context.request.get(`${app.apiUrl}/api/jobs/${completed.jobId}`)).status()).toBe(404);

    // A failed import tried again runs again, and fails again for the same reason.
    await choose(page, "Status", "All statuses");
    await page.getByRole("button", { name: "Retry import “Week 2 lecture”" }).click();
    await page.getByRole("status").filter({ hasText: "The import “Week 2 lecture” starts again." }).waitFor();
    await choose(page, "Status", "Failed");
    await failedItem.getByText(/Why it failed: Unsupported audio format/).waitFor({ timeout: 60_000 });
    await checkPage(app, "jobs-failed-again");
  }, 180_000);
});
