import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  eventually,
  httpClient,
  librivoxClip,
  requireStatus,
  sharedTestStack,
  signUpUser,
  uniqueSuffix,
  uploadMultipart,
  waitForJob,
  type SharedStack,
  type SignedUpUser,
} from "@study/testkit";
import {
  closeConnections,
  describeApi,
  encodeComponent,
  errorCode,
  fillPath,
  isErrorEnvelope,
  multipartBody,
  queryString,
  send,
  type ApiDescription,
  type JsonSchema,
  type Operation,
  type RawAnswer,
  type RawRequest,
} from "./openapi-operations";
import { subscribeThroughStripe, verifyEmail } from "./referral-helpers";

/**
 * The authorization matrix, generated from the gateway's own `/openapi.json`: every authenticated operation
 * answers 401 in the envelope without credentials; every operation that takes an id (in its path, query or
 * body) refuses a second user who sends the first user's ids (404, or the refusal the operation documents) and
 * never shows them the first user's data; and the first user still sees all of it afterwards, unchanged. A new
 * route is covered without editing this file, except that its path parameter must be fillable from the owner's
 * resources below (the test fails, naming it, until it is).
 */

/**
 * Operations that take no session, each with the reason. The matrix checks that no other operation is public,
 * so a route that loses its `auth: true` (or a new public one) fails here until it is reviewed.
 */
const PUBLIC_OPERATIONS: Record<string, string> = {
  "GET /health": "health check (spec: system endpoint)",
  "GET /health/live": "liveness probe",
  "GET /": "redirects to the client (spec: system endpoint)",
  "GET /openapi.json": "this document",
  "POST /api/auth/signup": "creates the session",
  "POST /api/auth/signin": "creates the session",
  "GET /api/auth/session": "answers 401 itself when there is no session",
  "GET /api/auth/signin/{provider}": "starts an OAuth sign-in",
  "POST /api/auth/sign-in/social": "starts an OAuth sign-in (desktop and mobile)",
  "GET /api/auth/callback/{provider}": "the identity provider's redirect",
  "GET /api/auth/app-complete": "hands an app sign-in over (a handover cookie is the credential)",
  "GET /api/auth/oauth-error": "reports an OAuth failure to the client",
  "GET /api/auth/verify-email": "the link in the mail (its token is the credential)",
  "POST /api/auth/password-reset/request": "for users who cannot sign in",
  "POST /api/auth/password-reset/confirm": "the reset token is the credential",
  "POST /api/store/assn": "the store's server notifications (spec: the one unauthenticated endpoint; the signed payload is the credential)",
  "POST /api/billing/webhook": "the payment processor's webhook (its signature is the credential)",
  "GET /api/calendar/feed/{token}.ics": "calendar apps subscribe without a session (the feed token is the credential)",
  "GET /docs": "Swagger UI (only with ENABLE_SWAGGER=true)",
};
/** Reviewed public operations that a deployment may leave out. */
const OPTIONAL_OPERATIONS = new Set(["GET /docs"]);

/**
 * Multipart operations: the document describes their body only as a form, so the fields and the file that make a
 * valid request are listed here (ids filled in from the same values as JSON bodies). An operation missing here
 * fails the matrix, naming it.
 */
const MULTIPART_FORMS: Record<string, { fields: string[]; file: { name: string; type: string; bytes: Buffer } }> = {
  // Real speech: a file the upload would take, so that only the course can be refused.
  "POST /api/notes/upload/audio": { fields: ["courseId"], file: { name: "clip.wav", type: "audio/wav", bytes: readFileSync(librivoxClip("0880")) } },
  "POST /api/notes/{id}/attachments": {
    fields: ["timestamp"],
    file: { name: "notes.txt", type: "text/plain", bytes: Buffer.from("Intruder notes") },
  },
  "POST /api/documents/upload": { fields: ["courseId"], file: { name: "intruder.txt", type: "text/plain", bytes: Buffer.from("Intruder text") } },
  "POST /api/documents/upload-syllabus": {
    fields: ["courseId"],
    file: { name: "syllabus.txt", type: "text/plain", bytes: Buffer.from("Final exam: December 14, 2026 at 9:00 am") },
  },
};

/** Values for fields the schema leaves open (a colour, a date) but the services check: a valid request reaches the id check. */
const FIELD_EXAMPLES: Record<string, unknown> = {
  color: "#3366ff",
  startDate: "2030-01-15T10:00:00.000Z",
  eventType: "EXAM",
  title: "Intruder title",
  name: "Intruder",
  question: "What is a cell?",
  url: "https://video.example.com/watch?v=42",
  timestamp: "1",
  rating: "good",
  type: "CASH",
};
/** Optional query parameters sent all the same: without them the operation refuses before any id is looked at. */
const QUERY_EXAMPLES: Record<string, string> = {
  // Words of the owner's document: were another user's search to reach it, the answer would show its marker.
  query: "mitochondria",
};

/** Inputs named like ids that name no user's record, each with what they are. */
const NOT_RECORD_IDS: Record<string, string> = {
  bundleId: "the app's bundle identifier (POST /api/store/confirm)",
  productId: "an App Store product (POST /api/store/confirm)",
};

/** An id-like input: `id`, `…Id`, `…Ids`. */
const isIdName = (name: string) => /^(id|\w+Ids?)$/.test(name) && !(name in NOT_RECORD_IDS);

/** A client address of this file's own (through the trusted loopback proxy): rate limits per address are not shared with other files. */
const CLIENT_ADDRESS = "198.51.100.17";
const REQUEST_TIMEOUT_MS = 15_000;

interface Owner extends SignedUpUser {
  /** A word in every title, name and text of the owner's: finding it in another user's answer is a leak. */
  marker: string;
  /** Path parameter values by `<segment before it>/{name}`, e.g. `courses/{id}`. */
  pathValues: Record<string, string>;
  /** Values of id-like query and body fields by name (`courseId`, `noteIds`, …). */
  fieldValues: Record<string, string>;
  /** Every id of the owner's records (to spot one in another user's answer). */
  ids: string[];
  jobStatus: string;
}

describe("authorization matrix from the OpenAPI document", () => {
  let stack: SharedStack;
  let api: ReturnType<typeof httpClient>;
  let description: ApiDescription;
  let owner: Owner;
  let intruder: SignedUpUser & { fieldValues: Record<string, string> };
  let folder: string;

  const call = (request: RawRequest, token?: string): Promise<RawAnswer> =>
    send(
      stack.gatewayUrl,
      { ...request, headers: { "x-forwarded-for": CLIENT_ADDRESS, ...(token ? { authorization: `Bearer ${token}` } : {}), ...request.headers } },
      REQUEST_TIMEOUT_MS,
    );

  /** The owner's world: one of every resource the API has, each carrying the marker. */
  async function ownerWithEverything(): Promise<Owner> {
    const marker = `zq${uniqueSuffix()}`;
    const user = await signUpUser(api, { name: "Owner" });
    const token = user.token;
    const course = requireStatus(
      await api("POST", "/api/courses", { token, body: { name: `Biology ${marker}`, professor: `Dr ${marker}` } }),
      201,
      "POST /api/courses",
    ).body.data.id as string;

    const [documentMaterial, lecture, event, chat, reward] = await Promise.all([
      documentWithMaterial(token, course, marker),
      transcribedLecture(token, course, marker),
      api("POST", "/api/calendar/events", {
        token,
        body: {
          title: `Exam ${marker}`,
          description: marker,
          startDate: "2030-01-15T10:00:00.000Z",
          eventType: "EXAM",
          color: "#ff0000",
          courseId: course,
        },
      }).then((answer) => requireStatus(answer, 201, "POST /api/calendar/events").body.data.id as string),
      api("POST", "/api/chat/sessions", { token, body: { courseId: course, title: `Chat ${marker}` } }).then(
        (answer) => requireStatus(answer, 201, "POST /api/chat/sessions").body.data.session.id as string,
      ),
      referralReward(user),
    ]);
    const card = requireStatus(await api("GET", `/api/flashcards/${documentMaterial.set}`, { token }), 200, "GET flashcard set").body.data
      .flashcards[0].id as string;
    // The document's processing (and the referral) notify the owner.
    const notification = await eventually(async () => {
      const answer = await api("GET", "/api/notifications?includeRead=false", { token });
      return (answer.body.data?.notifications?.[0]?.id as string | undefined) ?? undefined;
    }, 30_000);
    const details = requireStatus(await api("GET", "/api/account/details", { token }), 200, "GET /api/account/details").body.data;
    const account = details.accounts[0].id as string;
    const session = details.sessions[0].id as string;

    const pathValues = {
      "courses/{id}": course,
      "courses/{courseId}": course,
      "notes/{id}": lecture.note,
      "notes/{noteId}": lecture.note,
      "jobs/{id}": lecture.job,
      "files/{key}": lecture.fileKey,
      "documents/{id}": documentMaterial.document,
      "flashcards/{id}": documentMaterial.set,
      "flashcards/{setId}": documentMaterial.set,
      "cards/{cardId}": card,
      "quizzes/{id}": documentMaterial.quiz,
      "study-guides/{id}": documentMaterial.guide,
      "events/{id}": event,
      "sessions/{id}": chat,
      "notifications/{id}": notification,
    };
    const fieldValues = {
      courseId: course,
      noteId: lecture.note,
      documentId: documentMaterial.document,
      flashcardSetId: documentMaterial.set,
      quizId: documentMaterial.quiz,
      rewardId: reward,
      accountId: account,
      sessionId: session,
    };
    const ids = [...new Set([...Object.values(pathValues), ...Object.values(fieldValues), user.userId])];
    return { ...user, marker, pathValues, fieldValues, ids, jobStatus: lecture.status };
  }

  /** A processed text document and the flashcards, quiz and study guide generated from it. */
  async function documentWithMaterial(token: string, courseId: string, marker: string) {
    const text = [
      `${marker} is the word of this lecture about cells.`,
      "Mitochondria are the organelles that produce ATP through cellular respiration.",
      "Ribosomes are the structures that translate messenger RNA into proteins.",
      "The nucleus is the organelle that stores the cell's DNA.",
      "Chloroplasts are the organelles where photosynthesis takes place in plant cells.",
      "The Golgi apparatus modifies, sorts and packages proteins for secretion.",
      `Lysosomes are vesicles that contain digestive enzymes, as ${marker} explains.`,
    ].join(" ");
    const path = join(folder, "lecture.txt");
    await writeFile(path, text);
    const uploaded = await uploadMultipart(
      stack.gatewayUrl,
      token,
      "/api/documents/upload",
      { courseId, title: `Cells ${marker}` },
      {
        path,
        name: "lecture.txt",
        type: "text/plain",
      },
    );
    const document = requireStatus(uploaded, 200, "POST /api/documents/upload").body.document.id as string;
    await eventually(
      async () => {
        const answer = await api("GET", `/api/documents/${document}?courseId=${courseId}`, { token });
        if (answer.body.data?.status === "FAILED") throw new Error(`the document failed: ${answer.body.data.failureReason}`);
        return answer.body.data?.status === "COMPLETED";
      },
      60_000,
      100,
    );
    const generated = requireStatus(
      await api("POST", `/api/documents/${document}/generate`, {
        token,
        body: { types: ["flashcards", "quiz", "study-guide"], options: { questionCount: 3 } },
      }),
      200,
      "POST /api/documents/{id}/generate",
    ).body.results;
    return { document, set: generated.flashcards.id as string, quiz: generated.quiz.id as string, guide: generated["study-guide"].id as string };
  }

  /** A recorded lecture uploaded and transcribed: a note, its import job and its stored audio file. */
  async function transcribedLecture(token: string, courseId: string, marker: string) {
    const uploaded = await uploadMultipart(
      stack.gatewayUrl,
      token,
      "/api/notes/upload/audio",
      { courseId, title: `Lecture ${marker}` },
      {
        path: librivoxClip("0870"),
        name: "lecture.wav",
        type: "audio/wav",
      },
    );
    const { note, importJob } = requireStatus(uploaded, 201, "POST /api/notes/upload/audio").body.data;
    const job = await waitForJob(api, token, importJob.id as string, { timeoutMs: 60_000 });
    const audioUrl = requireStatus(await api("GET", `/api/notes/${note.id}`, { token }), 200, "GET /api/notes/{id}").body.data.audioUrl as
      string | null;
    if (!audioUrl?.startsWith("/api/files/")) throw new Error(`the note has no stored audio: ${audioUrl}`);
    return { note: note.id as string, job: job.id, status: job.status, fileKey: audioUrl.slice("/api/files/".length) };
  }

  /** A friend signs up with the owner's referral code and starts a trial: the owner's PENDING reward. */
  async function referralReward(user: SignedUpUser): Promise<string> {
    const code = await eventually(async () => {
      const answer = await api("GET", "/api/referral/dashboard", { token: user.token });
      return (answer.body.data?.referralCode as string | undefined) || undefined;
    }, 30_000);
    const friend = await signUpUser(api, { name: "Friend" });
    // The friend's referral account is made from the same registration event as the owner's.
    // A referral needs the friend's verified e-mail and a real subscription (issue #29).
    await verifyEmail(stack, friend.userId);
    await eventually(async () => (await api("POST", "/api/referral/signup", { token: friend.token, body: { code } })).status === 200, 30_000, 200);
    await subscribeThroughStripe(api, friend.token);
    const trial = requireStatus(await api("POST", "/api/referral/trial-start", { token: friend.token }), 200, "POST /api/referral/trial-start");
    const reward = (trial.body.data.rewards as { id: string; userId: string }[]).find((entry) => entry.userId === user.userId);
    if (!reward) throw new Error(`the trial gave the referrer no reward: ${JSON.stringify(trial.body.data)}`);
    return reward.id;
  }

  beforeAll(async () => {
    stack = sharedTestStack();
    api = httpClient(stack.gatewayUrl);
    folder = await mkdtemp(join(tmpdir(), "authz-matrix-"));
    description = await describeApi(stack.gatewayUrl);
    const [ownerWorld, other] = await Promise.all([ownerWithEverything(), signUpUser(api, { name: "Intruder" })]);
    owner = ownerWorld;
    const ownCourse = requireStatus(
      await api("POST", "/api/courses", { token: other.token, body: { name: "Intruder course" } }),
      201,
      "POST /api/courses",
    );
    intruder = { ...other, fieldValues: { courseId: ownCourse.body.data.id as string } };
  }, 150_000);

  afterAll(async () => {
    closeConnections();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  /** `<segment before it>/{name}` for each path parameter of the template. */
  const pathKeys = (operation: Operation) =>
    [...operation.path.matchAll(/([^/]+)\/\{(\w+)\}/g)].map(([, segment, name]) => ({ name, key: `${segment}/{${name}}` }));

  /** The encoded path values of an operation from a map, or the keys it lacks. */
  function pathFrom(operation: Operation, values: Record<string, string>): { path: string } | { missing: string[] } {
    const filled: Record<string, string> = {};
    const missing: string[] = [];
    for (const { name, key } of pathKeys(operation)) {
      const value = values[key];
      if (value === undefined) missing.push(key);
      // A wildcard (a storage key) keeps its slashes; each segment is encoded.
      else filled[name] = value.split("/").map(encodeComponent).join("/");
    }
    return missing.length > 0 ? { missing } : { path: fillPath(operation.path, filled) };
  }

  /**
   * A value valid for the schema, the simplest one: ids from `ids` (by field name), then the examples above, the
   * schema's own enum, const or default, and the smallest value its bounds allow.
   */
  function example(schema: JsonSchema, name: string, ids: Record<string, string>): unknown {
    const resolved = description.resolve(schema);
    const singular = name.replace(/Ids$/, "Id");
    if (isIdName(name) && ids[singular] !== undefined) return resolved.type === "array" ? [ids[singular]] : ids[singular];
    if (name in FIELD_EXAMPLES) return resolved.type === "array" ? [FIELD_EXAMPLES[name]] : FIELD_EXAMPLES[name];
    if ("const" in resolved) return resolved.const;
    if (Array.isArray(resolved.enum)) return resolved.enum[0];
    if (resolved.default !== undefined) return resolved.default;
    const alternatives = (resolved.anyOf ?? resolved.oneOf) as JsonSchema[] | undefined;
    if (alternatives) return example(alternatives.find((option) => description.resolve(option).type !== "null") ?? alternatives[0], name, ids);
    const type = Array.isArray(resolved.type) ? (resolved.type as string[]).find((t) => t !== "null") : resolved.type;
    switch (type) {
      case "string":
        if (resolved.format === "uuid") return randomUUID();
        if (resolved.format === "date-time") return "2030-01-15T10:00:00.000Z";
        if (resolved.format === "email") return "someone@example.com";
        if (resolved.format === "uri") return "https://example.com/";
        return "x".repeat(Math.max(1, Number(resolved.minLength ?? 1)));
      case "integer":
      case "number":
        return Math.max(Number(resolved.minimum ?? 1), 1);
      case "boolean":
        return true;
      case "array":
        return Array.from({ length: Number(resolved.minItems ?? 0) }, () => example(resolved.items as JsonSchema, name, ids));
      case "object": {
        const properties = (resolved.properties ?? {}) as Record<string, JsonSchema>;
        const required = new Set((resolved.required ?? []) as string[]);
        // Optional id fields are sent too: they are what the matrix is about.
        const wanted = Object.keys(properties).filter(
          (field) => required.has(field) || (isIdName(field) && ids[field.replace(/Ids$/, "Id")] !== undefined),
        );
        // A change of nothing is refused before any id is looked at (PATCH): one field at least.
        if (wanted.every((field) => isIdName(field)) && Object.keys(properties).length > 0) {
          wanted.push(Object.keys(properties).find((field) => !isIdName(field)) ?? Object.keys(properties)[0]);
        }
        return Object.fromEntries(wanted.map((field) => [field, example(properties[field], field, ids)]));
      }
      default:
        return null;
    }
  }

  /** Id-like inputs of an operation besides its path: query parameters and top-level body fields (JSON or form). */
  function idFields(operation: Operation): string[] {
    const query = operation.queryParameters.map((parameter) => parameter.name);
    let body: string[] = [];
    if (operation.body?.contentType === "application/json") body = Object.keys(description.resolve(operation.body.schema).properties ?? {});
    else if (operation.body?.contentType === "multipart/form-data") body = MULTIPART_FORMS[operation.id]?.fields ?? [];
    return [...query, ...body].filter(isIdName);
  }

  /** The request of an operation with these path values and id fields, or what it lacks. */
  function requestFor(operation: Operation, paths: Record<string, string>, ids: Record<string, string>): RawRequest | { missing: string[] } {
    const filled = pathFrom(operation, paths);
    if ("missing" in filled) return filled;
    const pairs: [string, string][] = [];
    for (const parameter of operation.queryParameters) {
      const value =
        ids[parameter.name] ?? QUERY_EXAMPLES[parameter.name] ?? (parameter.required ? example(parameter.schema, parameter.name, ids) : undefined);
      if (value !== undefined) pairs.push([parameter.name, encodeComponent(String(value))]);
    }
    const target = `${filled.path}${queryString(pairs)}`;
    if (!operation.body) return { method: operation.method, target };
    if (operation.body.contentType === "multipart/form-data") {
      const form = MULTIPART_FORMS[operation.id];
      if (!form) return { missing: [`a form for ${operation.id} in MULTIPART_FORMS`] };
      const fields = form.fields.map((field): [string, string] => [field, String(ids[field] ?? FIELD_EXAMPLES[field] ?? "x")]);
      const { contentType, body } = multipartBody(fields, form.file);
      return { method: operation.method, target, headers: { "content-type": contentType }, body };
    }
    const body = example(operation.body.schema, "", ids);
    return { method: operation.method, target, headers: { "content-type": operation.body.contentType }, body: JSON.stringify(body) };
  }

  /** What of the owner's an answer shows that the request did not carry itself: the marker, the e-mail, ids. */
  function leaked(answer: RawAnswer, request: RawRequest): string[] {
    const sent = `${decodeURIComponent(request.target)} ${request.body === undefined ? "" : request.body.toString()}`;
    const secrets = [owner.marker, owner.email, ...owner.ids.filter((id) => !sent.includes(id))];
    return secrets.filter((secret) => answer.text.includes(secret));
  }

  it("has no public operation but the reviewed ones", () => {
    const operations = description.operations.map((operation) => operation.id);
    const isPublic = description.operations.filter((operation) => !operation.authenticated).map((operation) => operation.id);
    expect(isPublic.filter((id) => !(id in PUBLIC_OPERATIONS))).toEqual([]);
    // A reviewed entry whose route is gone (or became authenticated) is stale.
    expect(
      Object.keys(PUBLIC_OPERATIONS).filter((id) => !isPublic.includes(id) && (operations.includes(id) || !OPTIONAL_OPERATIONS.has(id))),
    ).toEqual([]);
    expect(description.operations.filter((operation) => operation.authenticated).length).toBeGreaterThan(50);
  });

  it("answers 401 UNAUTHORIZED in the envelope to every authenticated operation without credentials or with a made-up token", async () => {
    const wrong: string[] = [];
    const authenticated = description.operations.filter((operation) => operation.authenticated);
    for (const operation of authenticated) {
      // Any id will do: the session is checked before anything else.
      const values = Object.fromEntries(pathKeys(operation).map(({ key }) => [key, owner.pathValues[key] ?? randomUUID()]));
      const filled = pathFrom(operation, values);
      if ("missing" in filled) throw new Error(`unreachable: ${filled.missing.join(", ")}`);
      for (const token of [undefined, "made-up-session-token"]) {
        const answer = await call({ method: operation.method, target: filled.path }, token);
        const code = errorCode(answer.json);
        if (answer.status !== 401 || code !== "UNAUTHORIZED" || !isErrorEnvelope(answer.json) || !operation.statuses.includes("401")) {
          wrong.push(`${operation.id} ${token ? "with a made-up token" : "without credentials"} → ${answer.status} ${answer.text.slice(0, 200)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("refuses another user's ids on every operation that takes one (404 or its documented refusal), never showing that user's data", async () => {
    const unfillable: string[] = [];
    const wrong: string[] = [];
    let checked = 0;
    for (const operation of description.operations.filter((candidate) => candidate.authenticated)) {
      const fields = idFields(operation);
      const hasPathIds = pathKeys(operation).length > 0;
      if (!hasPathIds && fields.length === 0) continue;
      const unknown = fields.filter((field) => owner.fieldValues[field.replace(/Ids$/, "Id")] === undefined);
      if (unknown.length > 0) {
        unfillable.push(`${operation.id}: id field(s) ${unknown.join(", ")} have no value of the owner's (add it to fieldValues)`);
        continue;
      }
      // Every id the owner's; then each id field the owner's with the intruder's own for the others (a check of one id only is caught).
      const variants: Record<string, string>[] = [owner.fieldValues];
      for (const field of fields) {
        const mixed = { ...owner.fieldValues, ...intruder.fieldValues };
        const name = field.replace(/Ids$/, "Id");
        mixed[name] = owner.fieldValues[name];
        variants.push(mixed);
      }
      const seen = new Set<string>();
      for (const ids of variants) {
        const request = requestFor(operation, owner.pathValues, ids);
        if ("missing" in request) {
          unfillable.push(
            `${operation.id}: no value for ${request.missing.join(", ")} (add the owner's resource to pathValues or the form to MULTIPART_FORMS)`,
          );
          break;
        }
        const key = `${request.target} ${request.body?.toString() ?? ""}`;
        if (seen.has(key)) continue;
        seen.add(key);
        checked++;
        const answer = await call(request, intruder.token);
        const code = errorCode(answer.json) ?? "";
        const refused =
          (answer.status === 404 || answer.status === 403 || (answer.status === 400 && /NOT_FOUND$/.test(code))) &&
          operation.statuses.includes(String(answer.status)) &&
          isErrorEnvelope(answer.json);
        // A list filtered by another user's id may answer with the caller's own (empty) list instead.
        const filtered = !hasPathIds && operation.body === undefined && answer.status === 200;
        const leaks = leaked(answer, request);
        if ((!refused && !filtered) || leaks.length > 0) {
          wrong.push(
            `${operation.id} ${request.target} ${request.body?.toString().slice(0, 200) ?? ""} → ${answer.status} ${answer.text.slice(0, 300)}${leaks.length > 0 ? ` LEAKS ${leaks.join(", ")}` : ""}`,
          );
        }
      }
    }
    expect(unfillable).toEqual([]);
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(40);
  });

  it("still shows the owner every one of its resources, unchanged by the other user's attempts", async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const operation of description.operations.filter((candidate) => candidate.authenticated && candidate.method === "GET")) {
      if (pathKeys(operation).length === 0) continue;
      const request = requestFor(operation, owner.pathValues, owner.fieldValues);
      if ("missing" in request) continue;
      checked++;
      const answer = await call(request, owner.token);
      if (answer.status < 200 || answer.status > 299 || !operation.statuses.includes(String(answer.status))) {
        wrong.push(`${operation.id} ${request.target} → ${answer.status} ${answer.text.slice(0, 300)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(15);

    const token = owner.token;
    const get = async (path: string) => requireStatus(await api("GET", path, { token }), 200, `GET ${path}`).body.data;
    const { pathValues: p, fieldValues: f, marker } = owner;
    expect((await get(`/api/courses/${p["courses/{id}"]}`)).name).toContain(marker);
    expect((await get(`/api/notes/${p["notes/{id}"]}`)).title).toContain(marker);
    expect((await get(`/api/jobs/${p["jobs/{id}"]}`)).status).toBe(owner.jobStatus);
    expect((await get(`/api/calendar/events/${p["events/{id}"]}`)).title).toContain(marker);
    expect((await get(`/api/documents/${p["documents/{id}"]}?courseId=${f.courseId}`)).title).toContain(marker);
    expect((await get(`/api/chat/sessions/${p["sessions/{id}"]}`)).session).toMatchObject({ title: `Chat ${marker}`, messageCount: 0 });
    const set = await get(`/api/flashcards/${p["flashcards/{id}"]}`);
    expect(set.flashcards.find((card: { id: string }) => card.id === p["cards/{cardId}"]).schedule.reps).toBe(0);
    expect(await get(`/api/quizzes/${p["quizzes/{id}"]}/attempts`)).toEqual([]);
    expect((await get(`/api/study-guides/${p["study-guides/{id}"]}`)).id).toBe(p["study-guides/{id}"]);
    const unread = (await get("/api/notifications?includeRead=false")).notifications.map((n: { id: string }) => n.id);
    expect(unread).toContain(p["notifications/{id}"]);
    const credits = await get("/api/referral/account-credits");
    expect(credits.pendingRewards.map((reward: { id: string }) => reward.id)).toContain(f.rewardId);
    const details = await get("/api/account/details");
    expect(details.accounts.map((account: { id: string }) => account.id)).toContain(f.accountId);
    expect(details.sessions.map((session: { id: string }) => session.id)).toContain(f.sessionId);
  });
});
