import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  eventually,
  httpClient,
  requireStatus,
  sharedTestStack,
  signUpWithCourse,
  uniqueSuffix,
  uploadMultipart,
  type SharedStack,
} from "@study/testkit";

/**
 * Issue #29: `GET /api/documents` and `GET /api/documents/search` with another user's course (or one that does not
 * exist) answer 404 NOT_FOUND "Course not found", as the OpenAPI document says and as the rest of the API treats
 * another user's id (a course's notes, an upload into the course), not 200 with an empty list. And the universal
 * search's description names what it searches, documents and calendar events included.
 */
describe("documents of a course that is not the caller's", () => {
  let stack: SharedStack;
  let api: ReturnType<typeof httpClient>;
  let folder: string;

  beforeAll(async () => {
    stack = sharedTestStack();
    api = httpClient(stack.gatewayUrl);
    folder = await mkdtemp(join(tmpdir(), "documents-course-scope-"));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  const courseNotFound = { success: false, error: "Course not found", code: "NOT_FOUND" };

  it("answers 404 NOT_FOUND to a list or a search in another user's course or an unknown one; the owner's own answer 200", async () => {
    const owner = await signUpWithCourse(api, { name: "Owner", courseName: "Chemistry" });
    const other = await signUpWithCourse(api, { name: "Other", courseName: "Chemistry" });
    const path = join(folder, "bonds.txt");
    await writeFile(path, "Covalent bonds share electron pairs between atoms.");
    const upload = await uploadMultipart(
      stack.gatewayUrl,
      owner.token,
      "/api/documents/upload",
      { courseId: owner.courseId },
      {
        path,
        name: "bonds.txt",
        type: "text/plain",
      },
    );
    requireStatus(upload, 200, "POST /api/documents/upload");

    for (const courseId of [owner.courseId, randomUUID()]) {
      for (const target of [`/api/documents?courseId=${courseId}`, `/api/documents/search?query=covalent&courseId=${courseId}`]) {
        const answer = await api("GET", target, { token: other.token });
        expect({ target, status: answer.status, body: answer.body }).toEqual({ target, status: 404, body: courseNotFound });
      }
    }
    // A malformed course id is still the parameter's fault.
    expect((await api("GET", "/api/documents/search?query=covalent&courseId=&limit=5", { token: other.token })).status).toBe(400);

    // Each user's own course answers as before: the other's is empty, the owner's has the document.
    const empty = requireStatus(await api("GET", `/api/documents?courseId=${other.courseId}`, { token: other.token }), 200, "GET /api/documents");
    expect(empty.body.data).toEqual([]);
    const searched = await api("GET", `/api/documents/search?query=covalent&courseId=${other.courseId}`, { token: other.token });
    expect([searched.status, searched.body.results]).toEqual([200, []]);
    const own = requireStatus(await api("GET", `/api/documents?courseId=${owner.courseId}`, { token: owner.token }), 200, "GET /api/documents");
    expect(own.body.data).toHaveLength(1);
  });

  it("describes GET /api/search as searching documents and calendar events, which it finds", async () => {
    const user = await signUpWithCourse(api, { name: "Searcher", courseName: "Geology" });
    const word = `zq${uniqueSuffix()}`;
    const path = join(folder, "rocks.txt");
    await writeFile(path, `Igneous rocks form from cooled magma, says ${word}.`);
    requireStatus(
      await uploadMultipart(
        stack.gatewayUrl,
        user.token,
        "/api/documents/upload",
        { courseId: user.courseId, title: `Rocks ${word}` },
        {
          path,
          name: "rocks.txt",
          type: "text/plain",
        },
      ),
      200,
      "POST /api/documents/upload",
    );
    requireStatus(
      await api("POST", "/api/calendar/events", {
        token: user.token,
        body: { title: `Field trip ${word}`, startDate: "2030-03-01T09:00:00.000Z", eventType: "CLASS", color: "#22aa22", courseId: user.courseId },
      }),
      201,
      "POST /api/calendar/events",
    );
    const types = await eventually(async () => {
      const answer = await api("GET", `/api/search?query=${word}`, { token: user.token });
      const found = new Set((answer.body.data?.results ?? []).map((result: { type: string }) => result.type));
      return found.has("document") && found.has("calendar_event") ? found : undefined;
    }, 30_000);
    expect([...types].sort()).toEqual(["calendar_event", "document"]);

    const document = (await (await fetch(`${stack.gatewayUrl}/openapi.json`)).json()) as {
      paths: Record<string, { get?: { description?: string } }>;
    };
    const description = document.paths["/api/search"].get?.description ?? "";
    expect(description).toMatch(/documents/);
    expect(description).toMatch(/calendar events/);
    expect(description).not.toMatch(/once they exist|not indexed/);
  });
});
