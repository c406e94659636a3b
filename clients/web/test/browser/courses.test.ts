import { checkPage, openApp, signUpThroughApi, type AppBrowser } from "./harness";
import { createCourse, upload } from "./jobs-helpers";

/** The courses pages: the list and its empty state, a course made and edited with every field, its notes, deleting it. */
describe("web app: courses", () => {
  let app: AppBrowser;

  beforeAll(async () => {
    app = await openApp();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
  });

  it("creates a course with every field, shows it with its notes, edits it and deletes it", async () => {
    const { page } = app;
    await signUpThroughApi(app);
    await page.goto(app.url("/courses"));
    await page.getByRole("heading", { name: "Your courses" }).waitFor();
    await page.getByText("No courses yet.").waitFor();
    await checkPage(app, "courses-empty");

    await page.getByRole("link", { name: "New course" }).click();
    await page.getByRole("heading", { name: "New course" }).waitFor();
    // A name of spaces passes the browser's "required" check; the API refuses it, and says so at the field.
    await page.getByLabel("Name").fill("   ");
    await page.getByRole("button", { name: "Create course" }).click();
    const name = page.getByRole("textbox", { name: "Name" });
    await page.getByText("is required", { exact: true }).waitFor();
    expect(await name.getAttribute("aria-invalid")).toBe("true");
    // The message is tied to the field for screen readers.
    const describedBy = (await name.getAttribute("aria-describedby")) ?? "";
    const descriptions = await Promise.all(describedBy.split(" ").map((id) => page.locator(`[id="${id}"]`).innerText()));
    expect(descriptions).toContain("is required");
    await page.getByRole("alert").waitFor();

    await page.getByLabel("Name").fill("Microbiology");
    await page.getByLabel("Code").fill("BIO 101");
    await page.getByRole("textbox", { name: "Colour" }).fill("#0b7a75");
    await page.getByLabel("Emoji").fill("🧫");
    await page.getByLabel("Professor").fill("Dr. Ada Fleming");
    await page.getByLabel("Semester").fill("Autumn 2026");
    await page.getByLabel("Description").fill("Bacteria, and how we tell them apart.");
    await checkPage(app, "course-new");
    // From the keyboard: the semester field, then Enter submits the form.
    await page.getByLabel("Semester").press("Enter");

    await page.getByRole("heading", { name: "Microbiology" }).waitFor();
    const courseUrl = new URL(page.url());
    const courseId = courseUrl.pathname.split("/").pop() ?? "";
    const details = page.getByRole("region", { name: "Course details" });
    for (const fact of ["BIO 101", "Dr. Ada Fleming", "Autumn 2026", "#0B7A75", "🧫", "Bacteria, and how we tell them apart."]) {
      await details.getByText(fact, { exact: true }).waitFor();
    }
    await page.getByText("No notes yet.").waitFor();
    expect(await page.getByRole("link", { name: "Add a note" }).getAttribute("href")).toBe(`/app/courses/${courseId}/notes/new`);
    await checkPage(app, "course-empty");

    // A note of the course (made through the API) is listed as a link to its page.
    const { noteId } = await upload(app, courseId, "Lecture 1: Gram staining");
    await page.reload();
    const noteLink = page.getByRole("link", { name: "Lecture 1: Gram staining" });
    await noteLink.waitFor();
    expect(await noteLink.getAttribute("href")).toBe(`/app/notes/${noteId}`);
    await checkPage(app, "course");

    // Edit every field: a new name and colour (a preset, from the keyboard), the professor cleared.
    await page.getByRole("link", { name: "Edit course" }).click();
    await page.getByRole("heading", { name: "Edit course" }).waitFor();
    expect(await page.getByLabel("Name").inputValue()).toBe("Microbiology");
    expect(await page.getByLabel("Professor").inputValue()).toBe("Dr. Ada Fleming");
    expect(await page.getByRole("textbox", { name: "Colour" }).inputValue()).toBe("#0B7A75");
    await page.getByLabel("Name").fill("Microbiology II");
    await page.getByLabel("Code").fill("BIO 102");
    await page.getByLabel("Professor").fill("");
    await page.getByLabel("Semester").fill("Spring 2027");
    await page.getByLabel("Emoji").fill("🔬");
    await page.getByLabel("Description").fill("Viruses this time.");
    // The presets are a grid of swatches: focus the selected one, move to the next and select it with the keyboard.
    await page.getByRole("listbox", { name: "Colour presets" }).getByRole("option", { selected: true }).focus();
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("Enter");
    expect(await page.getByRole("textbox", { name: "Colour" }).inputValue()).toBe("#2E7D32");
    await checkPage(app, "course-edit");
    await page.getByRole("button", { name: "Save changes" }).click();

    await page.getByRole("heading", { name: "Microbiology II" }).waitFor();
    for (const fact of ["BIO 102", "Spring 2027", "#2E7D32", "🔬", "Viruses this time."]) {
      await details.getByText(fact, { exact: true }).waitFor();
    }
    expect(await details.getByText("Professor").count()).toBe(0);

    await page.getByRole("link", { name: "Your courses" }).click();
    await page.getByRole("heading", { name: "Your courses" }).waitFor();
    await page.getByRole("link", { name: "Microbiology II" }).waitFor();
    await page.getByText("BIO 102 · Spring 2027").waitFor();
    await checkPage(app, "courses");

    // Delete, from the keyboard: the dialog asks first, and "Keep it" keeps it.
    await page.getByRole("link", { name: "Microbiology II" }).click();
    await page.getByRole("heading", { name: "Microbiology II" }).waitFor();
    await page.getByRole("button", { name: "Delete course" }).focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("alertdialog", { name: "Delete “Microbiology II”?" });
    await dialog.waitFor();
    await checkPage(app, "course-delete");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Delete course" }).click();
    await dialog.getByRole("button", { name: "Delete course" }).press("Enter");
    await page.getByRole("heading", { name: "Your courses" }).waitFor();
    await page.getByText("No courses yet.").waitFor();
    const gone = await app.context.request.get(`${app.apiUrl}/api/courses/${courseId}`);
    expect(gone.status()).toBe(404);
  });

  it("shows another user's course as not found", async () => {
    const { page } = app;
    await app.context.clearCookies();
    await signUpThroughApi(app, "Owner");
    const theirs = await createCourse(app, { name: "Private seminar" });
    await app.context.clearCookies();
    await signUpThroughApi(app, "Stranger");
    await page.goto(app.url(`/courses/${theirs}`));
    await page.getByRole("heading", { name: "Course not found" }).waitFor();
    expect(await page.getByText("Private seminar").count()).toBe(0);
    await checkPage(app, "course-not-found");
    await page.goto(app.url(`/courses/${theirs}/edit`));
    await page.getByRole("heading", { name: "Course not found" }).waitFor();
    await page.getByRole("link", { name: "Go to your courses" }).click();
    await page.getByRole("heading", { name: "Your courses" }).waitFor();
  });
});
