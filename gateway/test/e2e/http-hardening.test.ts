import { request as httpRequest } from "node:http";
import { httpClient, sharedTestStack, signUpUser, validateOpenApiDocument, type SharedStack, type SignedUpUser } from "@study/testkit";

/**
 * Input a new user (or a careless client) sends that once made the gateway answer 500 or an empty body: each is a
 * clear 4xx in the spec's envelope, on the real routes of the running system.
 */
describe("the gateway refuses malformed input in the envelope, never with a 500", () => {
  let stack: SharedStack;
  let api: ReturnType<typeof httpClient>;
  let user: SignedUpUser;
  const someId = "0190f3c1-7d2a-7c4e-9b1a-3f2d4c5e6a7b";

  beforeAll(async () => {
    stack = sharedTestStack();
    api = httpClient(stack.gatewayUrl);
    user = await signUpUser(api, { name: "Hardening" });
  });

  const validationError = (...details: { field: string; message: string }[]) => ({
    success: false,
    error: expect.any(String),
    code: "VALIDATION_ERROR",
    details,
  });

  it("answers a path parameter that is not valid percent-encoding with 400 on every route with an id, signed in or not", async () => {
    const routes: [string, string][] = [
      ["GET", "/api/courses/{id}"],
      ["PATCH", "/api/courses/{id}"],
      ["DELETE", "/api/notes/{id}"],
      ["GET", "/api/jobs/{id}"],
      ["GET", "/api/courses/{id}/notes"],
      ["GET", "/api/flashcards/{id}/export"],
      ["POST", "/api/notifications/{id}/read"],
      ["GET", "/api/files/{id}"],
      ["GET", "/api/calendar/events/{id}"],
      ["PATCH", "/api/calendar/events/{id}"],
      ["DELETE", "/api/calendar/events/{id}"],
    ];
    for (const [method, path] of routes) {
      for (const id of ["%E0%A4%A", "%", "%ZZ", "%C0%AF"]) {
        for (const token of [undefined, user.token]) {
          const response = await api(method, path.replace("{id}", id), { token });
          expect({ method, path, id, signedIn: token !== undefined, status: response.status, body: response.body }).toEqual({
            method,
            path,
            id,
            signedIn: token !== undefined,
            status: 400,
            body: validationError({ field: "path", message: "is not valid percent-encoding" }),
          });
        }
      }
    }
  });

  it("refuses a NUL character in text with 400 naming the field (PostgreSQL cannot store it)", async () => {
    const nul = "a\u0000b";
    const cases: [string, string, unknown, string][] = [
      ["POST", "/api/courses", { name: nul }, "name"],
      ["POST", "/api/courses", { name: "Biology", professor: nul }, "professor"],
      ["PATCH", `/api/notes/${someId}`, { title: nul }, "title"],
      ["PUT", `/api/notes/${someId}/user-notes`, { userNotes: [{ timestamp: 1, content: nul, contentType: "text" }] }, "userNotes.0.content"],
      ["POST", "/api/quizzes/validate", { quizId: someId, responses: [{ questionId: "q1", answer: nul }] }, "responses.0.answer"],
      ["POST", "/api/calendar/events", { title: nul, startDate: "2026-12-01T10:00:00Z", eventType: "EXAM", color: "red" }, "title"],
      ["PATCH", `/api/calendar/events/${someId}`, { location: nul }, "location"],
    ];
    for (const [method, path, body, field] of cases) {
      const response = await api(method, path, { token: user.token, body });
      expect({ path, status: response.status, body: response.body }).toEqual({
        path,
        status: 400,
        body: validationError({ field, message: "must not contain a NUL character" }),
      });
    }
    const semester = await api("GET", "/api/courses?semester=%00", { token: user.token });
    expect(semester.status).toBe(400);
    expect(semester.body).toEqual(validationError({ field: "semester", message: "must not contain a NUL character" }));
    const signUp = await api("POST", "/api/auth/signup", { body: { name: nul, email: "nul@example.com", password: "correct horse battery" } });
    expect(signUp.status).toBe(400);
    expect(signUp.body).toEqual(validationError({ field: "name", message: "must not contain a NUL character" }));
  });

  it("answers a body that is not compressed as its Content-Encoding says with 400", async () => {
    for (const encoding of ["gzip", "br"]) {
      const response = await api("POST", "/api/courses", {
        token: user.token,
        rawBody: '{"name":"Plain"}',
        headers: { "content-encoding": encoding },
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual(validationError({ field: "body", message: `is not valid ${encoding} data` }));
    }
  });

  it("answers a body of a type the route does not take with 415, naming the type it takes", async () => {
    const form = await api("POST", "/api/courses", {
      token: user.token,
      rawBody: "name=Biology",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    expect(form.body).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE", details: [{ field: "content-type", message: "must be application/json" }] });
    const text = await api("POST", "/api/auth/signin", {
      rawBody: '{"email":"a@example.com","password":"x"}',
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
    const upload = await api("POST", "/api/notes/upload/audio", { token: user.token, body: { courseId: someId } });
    expect(upload.status).toBe(415);
    expect(upload.body).toMatchObject({
      code: "UNSUPPORTED_MEDIA_TYPE",
      details: [{ field: "content-type", message: "must be multipart/form-data" }],
    });
  });

  it("answers a URL over Node's header limit with 431 in the envelope", async () => {
    const answer = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const request = httpRequest(`${stack.gatewayUrl}/api/courses/${"x".repeat(20_000)}`, (response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => (body += chunk.toString()));
        response.on("end", () => resolve({ status: response.statusCode, body }));
      });
      request.on("error", reject);
      request.end();
    });
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.body)).toEqual({ success: false, error: "The URL or the headers are too large", code: "HEADERS_TOO_LARGE" });
  });

  it("gives one validation detail per field, in the project's wording", async () => {
    const response = await api("GET", "/api/courses?limit=99999999999999999999999&offset=-1", { token: user.token });
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual([
      { field: "limit", message: "must be at most 100" },
      { field: "offset", message: "must be at least 0" },
    ]);
    const course = await api("POST", "/api/courses", { token: user.token, body: { name: 7, code: "x".repeat(51) } });
    expect(course.body.details).toEqual([
      { field: "name", message: "must be a string" },
      { field: "code", message: "must be at most 50 characters" },
    ]);
  });

  it("serves an OpenAPI 3.1 document that validates, with its shared schemas in components/schemas", async () => {
    const { body: document } = await api("GET", "/openapi.json");
    expect(await validateOpenApiDocument(document)).toEqual({ valid: true, errors: null });
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(["Error", "Course", "Note", "Pagination"]));
  });
});
