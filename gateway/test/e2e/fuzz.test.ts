import { parse as parseQueryString } from "node:querystring";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  checkAgainstDocument,
  httpClient,
  librivoxClip,
  requireStatus,
  sharedTestStack,
  signUpUser,
  uploadMultipart,
  type SharedStack,
  type SignedUpUser,
} from "@study/testkit";
import fc from "fast-check";
import {
  closeConnections,
  describeApi,
  encodeComponent,
  fillPath,
  isErrorEnvelope,
  multipartBody,
  send,
  type ApiDescription,
  type JsonSchema,
  type Operation,
  type RawAnswer,
} from "./openapi-operations";

/**
 * Fuzzing generated from the gateway's own `/openapi.json`: for every operation, requests whose path, query or
 * body break its schema (wrong types, lengths, encodings, huge numbers, unicode, control characters, lone
 * surrogates, nested junk, malformed JSON, wrong content types) must be refused with a 4xx in the error
 * envelope; requests valid for the schema must answer 2xx or one of the operation's documented statuses, with
 * the documented body. Never a 5xx, never an answer that does not come (each request has a deadline).
 *
 * Bounded: a fixed seed (printed; FUZZ_SEED overrides it), a fixed number of runs per operation (FUZZ_RUNS
 * scales them), a time budget for the whole file (FUZZ_BUDGET_MS) shared fairly among the operations.
 * FUZZ_ONLY="<text>" fuzzes only the operations whose "METHOD /path" contains it (to replay a failure).
 */

const SEED = process.env.FUZZ_SEED === undefined ? 17_2026 : Number(process.env.FUZZ_SEED);
const SCALE = Number(process.env.FUZZ_RUNS ?? 1);
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 35_000);
const REQUEST_TIMEOUT_MS = 10_000;
/** Operations fuzzed side by side (each run of one operation is sequential). */
const CONCURRENCY = 3;
const RUNS = { invalid: 16, valid: 6 };

/** Not fuzzed at all, each with why. */
const SKIPPED: Record<string, string> = {
  "POST /api/auth/signout": "ends the fuzzing user's session: every later request would answer 401",
};

/**
 * Fewer runs for operations that start real work or, in production, spend external quota; each with why.
 * (Valid URLs are generated on loopback only, which the download policy refuses: no import reaches the network.)
 */
const FEWER_RUNS: Record<string, { invalid: number; valid: number; why: string }> = {
  "POST /api/notes/import/video": { invalid: 6, valid: 2, why: "an accepted URL starts a download and a transcription (external quota)" },
  "POST /api/notes/import/audio": { invalid: 6, valid: 2, why: "an accepted URL starts a download and a transcription (external quota)" },
  "POST /api/flashcards/generate": { invalid: 6, valid: 2, why: "generation (an AI model's quota in production)" },
  "POST /api/quizzes/generate": { invalid: 6, valid: 2, why: "generation (an AI model's quota in production)" },
  "POST /api/study-guides/generate": { invalid: 6, valid: 2, why: "generation (an AI model's quota in production)" },
  "POST /api/documents/{id}/generate": { invalid: 6, valid: 2, why: "generation (an AI model's quota in production)" },
  "POST /api/chat/sessions/{id}/messages": { invalid: 6, valid: 2, why: "an answer is generated (AI quota; an hourly question limit)" },
  "POST /api/auth/signup": { invalid: 8, valid: 2, why: "each accepted one hashes a password (CPU) and creates a user" },
  "POST /api/auth/verify-email/request": { invalid: 4, valid: 1, why: "each accepted one sends a mail" },
  "POST /api/auth/password-reset/request": { invalid: 6, valid: 2, why: "may send a mail" },
  "POST /api/billing/checkout": { invalid: 6, valid: 2, why: "calls the payment processor" },
  "POST /api/billing/portal": { invalid: 6, valid: 2, why: "calls the payment processor" },
  "POST /api/notes/upload/audio": { invalid: 6, valid: 2, why: "an accepted file is stored and transcribed" },
  "POST /api/documents/upload": { invalid: 6, valid: 2, why: "an accepted file is stored and extracted" },
  "POST /api/documents/upload-syllabus": { invalid: 6, valid: 2, why: "an accepted file is extracted before the answer" },
  "GET /health": { invalid: 4, valid: 2, why: "asks every service for its health" },
};

/** Statuses of the HTTP layer that any operation may answer to a request it cannot take, in the envelope. */
const HTTP_LAYER_STATUSES = new Set([413, 415, 431]);

interface Request {
  /** The path with its parameters, encoded. */
  path: string;
  /** Encoded query pairs. */
  query: [string, string][];
  headers: Record<string, string>;
  body?: Buffer | string;
  /** For a multipart body, whether the generator made it broken on purpose (the form's content is not in the document). */
  brokenForm?: boolean;
  /** What was done to the request, for the failure message. */
  what: string;
}

/** A number of its own for each operation, whatever else is fuzzed: one operation's runs replay alone (FUZZ_ONLY). */
const stableNumber = (text: string) => [...text].reduce((hash, char) => (hash * 31 + char.charCodeAt(0)) % 1_000_003, 7);

const target = (request: Request) => `${request.path}${request.query.length ? `?${request.query.map(([n, v]) => `${n}=${v}`).join("&")}` : ""}`;

describe("fuzzing every operation of the OpenAPI document", () => {
  let stack: SharedStack;
  let description: ApiDescription;
  let user: SignedUpUser;
  /** The fuzzing user's own ids, by `<segment>/{name}`: valid requests sometimes reach real records. */
  const own: Record<string, string> = {};

  beforeAll(async () => {
    stack = sharedTestStack();
    const api = httpClient(stack.gatewayUrl);
    description = await describeApi(stack.gatewayUrl);
    user = await signUpUser(api, { name: "Fuzzer" });
    const token = user.token;
    const course = requireStatus(await api("POST", "/api/courses", { token, body: { name: "Fuzzing" } }), 201, "POST /api/courses").body.data
      .id as string;
    const [event, chat, feed] = await Promise.all([
      api("POST", "/api/calendar/events", {
        token,
        body: { title: "Fuzz", startDate: "2030-01-15T10:00:00.000Z", eventType: "EXAM", color: "#ff0000" },
      }),
      api("POST", "/api/chat/sessions", { token, body: { courseId: course } }),
      api("GET", "/api/calendar/feed", { token }),
    ]);
    // A note (its transcription under way) and a document of the user's, for valid requests to reach.
    const lecture = await uploadMultipart(
      stack.gatewayUrl,
      token,
      "/api/notes/upload/audio",
      { courseId: course },
      {
        path: librivoxClip("0930"),
        name: "lecture.wav",
        type: "audio/wav",
      },
    );
    const { note, importJob } = requireStatus(lecture, 201, "POST /api/notes/upload/audio").body.data;
    const text = await mkdtemp(join(tmpdir(), "fuzz-"));
    await writeFile(join(text, "notes.txt"), "Osmosis moves water across membranes. Diffusion moves solutes down their gradient.");
    const upload = await uploadMultipart(
      stack.gatewayUrl,
      token,
      "/api/documents/upload",
      { courseId: course },
      {
        path: join(text, "notes.txt"),
        name: "notes.txt",
        type: "text/plain",
      },
    );
    await rm(text, { recursive: true, force: true });
    const document = requireStatus(upload, 200, "POST /api/documents/upload").body.document.id as string;
    Object.assign(own, {
      "?courseId": course,
      "notes/{id}": note.id as string,
      "notes/{noteId}": note.id as string,
      "jobs/{id}": importJob.id as string,
      "documents/{id}": document,
      "courses/{id}": course,
      "courses/{courseId}": course,
      "events/{id}": requireStatus(event, 201, "POST /api/calendar/events").body.data.id as string,
      "sessions/{id}": requireStatus(chat, 201, "POST /api/chat/sessions").body.data.session.id as string,
      "feed/{token}": requireStatus(feed, 200, "GET /api/calendar/feed").body.data.token as string,
    });
  });

  afterAll(() => closeConnections());

  // ---------------------------------------------------------------- values valid for a schema

  /** Text of printable ASCII mostly, with some accented and CJK letters (one UTF-16 unit each, so lengths agree everywhere). */
  const textUnit = fc.oneof(
    { arbitrary: fc.string({ minLength: 1, maxLength: 1, unit: "grapheme-ascii" }), weight: 6 },
    fc.constantFrom("é", "ß", "中", "ü", "Ω", "\u00a0"),
  );

  function validString(schema: JsonSchema): fc.Arbitrary<string> {
    const min = Number(schema.minLength ?? 0);
    const max = Math.min(Number(schema.maxLength ?? min + 30), min + 60);
    const fits = (text: string) => text.length >= min && text.length <= Number(schema.maxLength ?? Infinity);
    switch (schema.format) {
      case "uuid":
        return fc.uuid({ version: 4 });
      case "date-time":
        return fc.date({ min: new Date("1970-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((date) => date.toISOString());
      case "date":
        return fc
          .date({ min: new Date("1970-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
          .map((date) => date.toISOString().slice(0, 10));
      case "email":
        return fc.emailAddress().filter(fits);
      case "uri":
        // Loopback only: no request may leave the machine (the download policy refuses loopback).
        return fc.webPath().map((path) => `http://127.0.0.1:9${path.startsWith("/") ? path : `/${path}`}`);
      default:
        if (typeof schema.pattern === "string") return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
        return fc.string({ unit: textUnit, minLength: min, maxLength: max });
    }
  }

  const bound = (value: unknown) => (typeof value === "number" ? value : undefined);

  function validInteger(schema: JsonSchema): fc.Arbitrary<number> {
    const min = bound(schema.minimum) ?? (bound(schema.exclusiveMinimum) ?? -Number.MAX_SAFE_INTEGER - 1) + 1;
    const max = bound(schema.maximum) ?? (bound(schema.exclusiveMaximum) ?? Number.MAX_SAFE_INTEGER + 1) - 1;
    const near = fc.integer({ min: Math.max(min, -1000), max: Math.min(max, 1000) });
    const anywhere = fc.bigInt({ min: BigInt(Math.ceil(min)), max: BigInt(Math.floor(max)) }).map(Number);
    return Math.max(min, -1000) <= Math.min(max, 1000)
      ? fc.oneof(near, anywhere, fc.constantFrom(min, max))
      : fc.oneof(anywhere, fc.constantFrom(min, max));
  }

  function validNumber(schema: JsonSchema): fc.Arbitrary<number> {
    return fc.double({
      min: bound(schema.minimum) ?? bound(schema.exclusiveMinimum),
      max: bound(schema.maximum) ?? bound(schema.exclusiveMaximum),
      minExcluded: schema.exclusiveMinimum !== undefined,
      maxExcluded: schema.exclusiveMaximum !== undefined,
      noNaN: true,
      noDefaultInfinity: true,
    });
  }

  /** Any value the schema accepts (as JSON Schema reads it: refinements zod adds may still refuse it, with a documented 400). */
  function valid(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
    const resolved = description.resolve(schema);
    if ("const" in resolved) return fc.constant(resolved.const);
    if (Array.isArray(resolved.enum)) return fc.constantFrom(...(resolved.enum as unknown[]));
    const alternatives = (resolved.anyOf ?? resolved.oneOf) as JsonSchema[] | undefined;
    if (alternatives) return fc.oneof(...alternatives.map((alternative) => valid(alternative, depth)));
    if (Array.isArray(resolved.allOf) && resolved.allOf.length > 0) return valid(resolved.allOf[0] as JsonSchema, depth);
    const types = Array.isArray(resolved.type) ? (resolved.type as string[]) : typeof resolved.type === "string" ? [resolved.type] : [];
    if (types.length > 1) return fc.oneof(...types.map((type) => valid({ ...resolved, type }, depth)));
    switch (types[0]) {
      case "string":
        return validString(resolved);
      case "integer":
        return validInteger(resolved);
      case "number":
        return validNumber(resolved);
      case "boolean":
        return fc.boolean();
      case "null":
        return fc.constant(null);
      case "array": {
        const minLength = Number(resolved.minItems ?? 0);
        const maxLength = Math.min(Number(resolved.maxItems ?? minLength + 3), minLength + 3);
        const items = valid((resolved.items ?? {}) as JsonSchema, depth + 1);
        return resolved.uniqueItems
          ? fc.uniqueArray(items, { minLength, maxLength, selector: (item) => JSON.stringify(item) })
          : fc.array(items, { minLength, maxLength });
      }
      case "object": {
        const properties = (resolved.properties ?? {}) as Record<string, JsonSchema>;
        const model = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, valid(property, depth + 1)]));
        return fc.record(model, { requiredKeys: ((resolved.required ?? []) as string[]).filter((name) => name in properties) });
      }
      default:
        // A schema that says nothing ("any"): small JSON.
        return fc.jsonValue({ maxDepth: depth > 2 ? 0 : 2 });
    }
  }

  // ---------------------------------------------------------------- values that break things

  const HOSTILE_TEXT = [
    "",
    " ",
    "\u0000",
    "a\u0000b",
    "\ud800",
    "x\udfffy",
    "\u202e\u2066\u200b",
    "😀".repeat(300),
    "NaN",
    "Infinity",
    "-Infinity",
    "-0",
    "1e309",
    "-1e309",
    "99999999999999999999999999999",
    "9007199254740993",
    "2147483648",
    "-2147483649",
    "0x7fffffff",
    " 12 ",
    "true",
    "null",
    "[]",
    "{}",
    "../../etc/passwd",
    "<script>alert(1)</script>",
    "' OR '1'='1",
    "${jndi:ldap://127.0.0.1:9/x}",
    "%s%n%x",
  ];

  const hostileText = fc.oneof(
    { arbitrary: fc.constantFrom(...HOSTILE_TEXT), weight: 4 },
    { arbitrary: fc.string({ unit: "binary", maxLength: 30 }), weight: 2 },
    {
      arbitrary: fc.string({ unit: fc.integer({ min: 0, max: 31 }).map((code) => String.fromCharCode(code)), minLength: 1, maxLength: 8 }),
      weight: 1,
    },
    { arbitrary: fc.integer({ min: 300, max: 70_000 }).map((length) => "x".repeat(length)), weight: 1 },
  );

  /** JSON values of every type, odd numbers and deep nesting included. */
  const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
    { arbitrary: hostileText, weight: 3 },
    {
      arbitrary: fc.constantFrom(0, -1, 0.5, -0.5, 1e308, -1e308, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, -(2 ** 63), 5e-324, true, false, null),
      weight: 3,
    },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 2 },
    {
      arbitrary: fc.integer({ min: 2, max: 3000 }).map((depth) => JSON.parse(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`) as unknown),
      weight: 1,
    },
    { arbitrary: fc.array(fc.jsonValue({ maxDepth: 1 }), { minLength: 1, maxLength: 3 }), weight: 1 },
  );

  /** Raw JSON number texts JSON.stringify never writes. */
  const HUGE_NUMBER_TEXTS = ["1e400", "-1e400", "123456789012345678901234567890", "1.00000000000000000000000001", "-0.0", "1E+2", "0.1e-400"];

  /** Percent-encoded path segments or query values: broken UTF-8, encoded surrogates, traversal, controls, over-long. */
  const hostileComponent = fc.oneof(
    { arbitrary: hostileText.filter((text) => text.length < 5000).map(encodeComponent), weight: 4 },
    {
      arbitrary: fc.constantFrom(
        "%",
        "%Z",
        "%ZZ",
        "%E0%A4%A",
        "%ED%A0%80",
        "%ED%BF%BF",
        "%C0%AF",
        "%C0%80",
        "%FF%FE",
        "%F4%90%80%80",
        "%00",
        "%0A%0D",
        "..",
        ".",
        "%2E%2E",
        "%2F",
        "a%2F..%2Fb",
        "%25",
        "+",
        "%20",
      ),
      weight: 4,
    },
    { arbitrary: fc.integer({ min: 17_000, max: 20_000 }).map((length) => "y".repeat(length)), weight: 1 },
  );

  const randomBytes = fc.uint8Array({ minLength: 1, maxLength: 512 }).map((bytes) => Buffer.from(bytes));

  const MALFORMED_JSON = [
    "{",
    '{"a":',
    "{'a':1}",
    '{"a":1}garbage',
    "NaN",
    "[1,]",
    '{"a":01}',
    '{"a":"\\x41"}',
    "\ufeff{}",
    '{"a":"\\ud800',
    "123",
    '"text"',
    "null",
  ];

  // ---------------------------------------------------------------- requests

  const pathKeys = (operation: Operation) =>
    [...operation.path.matchAll(/([^/]+)\/\{(\w+)\}/g)].map(([, segment, name]) => ({ name, key: `${segment}/{${name}}` }));
  const pathSchema = (operation: Operation, name: string) => operation.pathParameters.find((p) => p.name === name)?.schema ?? { type: "string" };
  /** Every byte but the unreserved ones encoded, a slash too (a wildcard's router decodes %2F back into its value). */
  const encodePathValue = encodeComponent;

  /** Valid path values: the user's own records sometimes (never for a DELETE: the user keeps them), else any valid value. */
  function validPath(operation: Operation): fc.Arbitrary<Record<string, string>> {
    const model = Object.fromEntries(
      pathKeys(operation).map(({ name, key }) => {
        const any = valid(pathSchema(operation, name)).map((value) => encodePathValue(String(value)));
        const mine = own[key];
        return [name, mine && operation.method !== "DELETE" ? fc.oneof(fc.constant(encodePathValue(mine)), any) : any];
      }),
    );
    return fc.record(model) as fc.Arbitrary<Record<string, string>>;
  }

  function validQuery(operation: Operation): fc.Arbitrary<[string, string][]> {
    const entries = operation.queryParameters.map((parameter) => {
      const mine = own[`?${parameter.name}`];
      const any = valid(parameter.schema).map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
      const value = (mine ? fc.oneof(fc.constant(mine), any) : any).map((v): [string, string] => [parameter.name, encodeComponent(v)]);
      return parameter.required ? value.map((pair) => [pair]) : fc.option(value, { nil: undefined }).map((pair) => (pair ? [pair] : []));
    });
    return fc.tuple(...entries).map((lists) => lists.flat());
  }

  /** The fields of a multipart form, from the summary's "(multipart: file, courseId, title?, …)". */
  function formFields(operation: Operation): { name: string; required: boolean }[] {
    const listed = /multipart: ([^)]*)\)/.exec(operation.summary)?.[1] ?? "file";
    return listed
      .split(",")
      .map((field) => field.trim())
      .filter((field) => field && field !== "file")
      .map((field) => ({ name: field.replace(/\?$/, ""), required: !field.endsWith("?") }));
  }

  const FILE_TYPES = ["audio/mpeg", "audio/wav", "text/plain", "application/pdf", "image/png", "application/octet-stream", "video/mp4"];

  /** A well-formed form: the user's course, plausible fields, a small file of random bytes. */
  function validForm(operation: Operation): fc.Arbitrary<{ fields: [string, string][]; file: { name: string; type: string; bytes: Buffer } }> {
    const fields = formFields(operation).map(({ name, required }) => {
      const value =
        name === "courseId"
          ? fc.constant(own["courses/{id}"])
          : name === "timestamp"
            ? fc.nat(100_000).map(String)
            : fc.string({ unit: textUnit, maxLength: 20 });
      const pair = value.map((v): [string, string] => [name, v]);
      return required ? pair.map((p) => [p]) : fc.option(pair, { nil: undefined }).map((p) => (p ? [p] : []));
    });
    const file = fc.record({
      name: fc.constantFrom("a.mp3", "b.wav", "c.txt", "d.pdf", "e.png", "f"),
      type: fc.constantFrom(...FILE_TYPES),
      bytes: randomBytes,
    });
    return fc.record({ fields: fc.tuple(...fields).map((lists) => lists.flat()), file });
  }

  function validBody(operation: Operation): fc.Arbitrary<Pick<Request, "headers" | "body">> {
    const body = operation.body;
    if (!body) return fc.constant({ headers: {} });
    if (body.contentType === "multipart/form-data") {
      return validForm(operation).map(({ fields, file }) => {
        const form = multipartBody(fields, file);
        return { headers: { "content-type": form.contentType }, body: form.body };
      });
    }
    return valid(body.schema).map((value) => ({ headers: { "content-type": body.contentType }, body: JSON.stringify(value) }));
  }

  function validRequest(operation: Operation): fc.Arbitrary<Request> {
    return fc.record({ path: validPath(operation), query: validQuery(operation), body: validBody(operation) }).map(({ path, query, body }) => ({
      path: fillPath(operation.path, path),
      query,
      headers: body.headers,
      body: body.body,
      what: "valid for the schema",
    }));
  }

  /** The body's JSON object with one field's value replaced by raw JSON text. */
  const withRawField = (value: unknown, field: string, raw: string) => {
    const object = typeof value === "object" && value !== null && !Array.isArray(value) ? { ...(value as Record<string, unknown>) } : {};
    object[field] = "\u0001RAW\u0001";
    return JSON.stringify(object).replace('"\\u0001RAW\\u0001"', raw);
  };

  /** Requests with one thing broken: a path parameter, a query parameter, the body, its bytes, its type. */
  function invalidRequest(operation: Operation): fc.Arbitrary<Request> {
    const base = validRequest(operation);
    const mutations: fc.Arbitrary<Request>[] = [];
    const parameters = pathKeys(operation);
    if (parameters.length > 0) {
      mutations.push(
        fc
          .tuple(base, validPath(operation), fc.constantFrom(...parameters.map((p) => p.name)), hostileComponent)
          .map(([request, values, name, junk]) => ({
            ...request,
            path: fillPath(operation.path, { ...values, [name]: junk }),
            what: `path parameter ${name} = ${junk.slice(0, 80)}`,
          })),
      );
    }
    if (operation.queryParameters.length > 0) {
      const names = operation.queryParameters.map((p) => p.name);
      mutations.push(
        fc.tuple(base, fc.constantFrom(...names), hostileComponent).map(([request, name, junk]) => ({
          ...request,
          query: [...request.query.filter(([n]) => n !== name), [name, junk] as [string, string]],
          what: `query ${name} = ${junk.slice(0, 80)}`,
        })),
        fc.tuple(base, fc.constantFrom(...names)).map(([request, name]) => ({
          ...request,
          query: [...request.query, [name, "1"], [name, "2"]] as [string, string][],
          what: `query ${name} given twice`,
        })),
      );
    }
    const body = operation.body;
    if (body?.contentType === "application/json") {
      const schema = description.resolve(body.schema);
      const fields = Object.keys((schema.properties ?? {}) as Record<string, unknown>);
      const json = (request: Request, text: string | Buffer, what: string, headers: Record<string, string> = {}) => ({
        ...request,
        headers: { "content-type": "application/json", ...headers },
        body: text,
        what,
      });
      const parsed = (request: Request) => JSON.parse(String(request.body)) as unknown;
      mutations.push(
        fc.tuple(base, hostileJson).map(([request, junk]) => json(request, JSON.stringify(junk) ?? "null", "body replaced by junk")),
        fc.tuple(base, fields.length > 0 ? fc.constantFrom(...fields) : fc.constant("unknownField"), hostileJson).map(([request, field, junk]) => {
          const value = parsed(request);
          return json(
            request,
            JSON.stringify({ ...(value as object), [field]: junk }),
            `body field ${field} = ${JSON.stringify(junk)?.slice(0, 80)}`,
          );
        }),
        fc
          .tuple(base, fields.length > 0 ? fc.constantFrom(...fields) : fc.constant("unknownField"), fc.constantFrom(...HUGE_NUMBER_TEXTS))
          .map(([request, field, raw]) => json(request, withRawField(parsed(request), field, raw), `body field ${field} = ${raw}`)),
        fc
          .tuple(base, fields.length > 0 ? fc.constantFrom(...fields) : fc.constant("unknownField"))
          .map(([request, field]) =>
            json(request, withRawField(parsed(request), field, '"\\ud800\\udc00\\udfff"'), `body field ${field} = lone surrogates`),
          ),
        fc
          .tuple(base, fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 12 }), hostileJson)
          .map(([request, key, junk]) =>
            json(request, JSON.stringify({ ...(parsed(request) as object), [`${key}_extra`]: junk }), `unknown field ${key}_extra`),
          ),
        fc
          .tuple(base, fc.integer({ min: 1_000, max: 100_000 }))
          .map(([request, depth]) => json(request, `${"[".repeat(depth)}${"]".repeat(depth)}`, `arrays nested ${depth} deep`)),
        fc
          .tuple(base, fc.integer({ min: 1_000, max: 60_000 }))
          .map(([request, depth]) => json(request, `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`, `objects nested ${depth} deep`)),
        fc
          .tuple(
            base,
            fc.constantFrom(
              "text/plain",
              "application/x-www-form-urlencoded",
              "multipart/form-data; boundary=x",
              "application/xml",
              "application/json; charset=latin1",
              "application/json; charset=utf-7",
            ),
          )
          .map(([request, type]) => ({ ...request, headers: { "content-type": type }, what: `content-type ${type}` })),
      );
    }
    if (body?.contentType === "multipart/form-data") {
      const form = validForm(operation);
      mutations.push(
        fc.tuple(base, form).map(([request, { fields }]) => {
          const broken = multipartBody(fields);
          return { ...request, headers: { "content-type": broken.contentType }, body: broken.body, brokenForm: true, what: "form without a file" };
        }),
        fc.tuple(base, randomBytes).map(([request, bytes]) => ({
          ...request,
          headers: { "content-type": "multipart/form-data; boundary=zzzz" },
          body: bytes,
          brokenForm: true,
          what: "random bytes as a form",
        })),
        fc.tuple(base, form).map(([request, { fields, file }]) => {
          const unbounded = multipartBody(fields, file);
          return {
            ...request,
            headers: { "content-type": "multipart/form-data" },
            body: unbounded.body,
            brokenForm: true,
            what: "form without a boundary",
          };
        }),
        fc
          .tuple(
            base,
            form,
            fc.constantFrom(
              ...formFields(operation)
                .map((field) => field.name)
                .concat("courseId"),
            ),
            hostileText,
          )
          .map(([request, { fields, file }, name, junk]) => {
            const hostile = multipartBody([...fields.filter(([n]) => n !== name), [name, junk.slice(0, 5000)]], file);
            return {
              ...request,
              headers: { "content-type": hostile.contentType },
              body: hostile.body,
              what: `form field ${name} = ${junk.slice(0, 80)}`,
            };
          }),
        base.map((request) => ({
          ...request,
          headers: { "content-type": "application/json" },
          body: '{"courseId":"x"}',
          what: "JSON instead of a form",
        })),
      );
    }
    if (operation.authenticated) {
      // Credentials that are no session: a 401, never a failure of whatever reads them.
      mutations.push(
        fc
          .tuple(
            base,
            fc.constantFrom(
              { authorization: "Bearer" },
              { authorization: "Bearer " },
              { authorization: "Basic dXNlcjpwYXNz" },
              { authorization: `Bearer ${"a".repeat(8000)}` },
              { authorization: "Bearer a.b.c" },
              { authorization: "bearer  \t x" },
              { authorization: "Bearer %ZZ%00" },
              { cookie: "better-auth.session_token=%ZZ" },
              { cookie: "better-auth.session_token=a.b; session_token=%E0%A4%A" },
              { cookie: "session_token=;;;=;" },
              { cookie: `__Secure-better-auth.session_token=${"%".repeat(300)}` },
              { cookie: 'study.session-token="unterminated' },
            ),
          )
          .map(([request, credentials]) => ({
            ...request,
            headers: { ...request.headers, ...credentials, ...(credentials.cookie ? { authorization: "" } : {}) },
            what: `credentials ${JSON.stringify(credentials).slice(0, 80)}`,
          })),
      );
    }
    // Any operation: a malformed JSON body, random bytes said to be JSON, a body not encoded as its header says.
    mutations.push(
      fc.tuple(base, fc.constantFrom(...MALFORMED_JSON)).map(([request, text]) => ({
        ...request,
        headers: { "content-type": "application/json" },
        body: text,
        brokenForm: undefined,
        what: `malformed JSON ${JSON.stringify(text)}`,
      })),
      fc.tuple(base, randomBytes).map(([request, bytes]) => ({
        ...request,
        headers: { "content-type": "application/json" },
        body: bytes,
        brokenForm: undefined,
        what: "random bytes as JSON",
      })),
      fc.tuple(base, fc.constantFrom("gzip", "br", "deflate", "x-unknown")).map(([request, encoding]) => ({
        ...request,
        headers: { "content-type": "application/json", "content-encoding": encoding },
        body: '{"plain":"json"}',
        brokenForm: undefined,
        what: `content-encoding ${encoding} on plain bytes`,
      })),
    );
    return fc.oneof(...mutations);
  }

  // ---------------------------------------------------------------- what the gateway must answer

  /**
   * What the gateway must do with the request, reading it as it does: refuse it (its input breaks the schema),
   * accept it or refuse it as documented, or anything but a failure: when the path names another operation (an
   * empty parameter) or the body is in a UTF charset other than UTF-8, which the parser decodes as said.
   */
  function verdict(operation: Operation, request: Request): "refuse" | "documented" | "lenient" {
    if (operation.authenticated && request.headers.authorization !== undefined) return "refuse";
    // Path: each parameter percent-decoded by the router (a malformed one is a 400), then checked.
    const template = operation.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{(\w+)\}/g, "(?<$1>[^/]+)");
    const match = new RegExp(`^${template}$`).exec(request.path);
    if (!match) return "lenient";
    const values: Record<string, string> = {};
    for (const [name, raw] of Object.entries(match.groups ?? {})) {
      try {
        values[name] = decodeURIComponent(raw);
      } catch {
        return "refuse";
      }
    }
    if (!description.validParameters(operation.pathParameters, values, `path ${operation.id}`)) return "refuse";
    // Query: node's querystring, as Express 5 reads it (a repeated name is an array).
    const query = parseQueryString(request.query.map(([name, value]) => `${name}=${value}`).join("&"));
    const declared = Object.fromEntries(operation.queryParameters.map((p) => [p.name, query[p.name]]));
    if (!description.validParameters(operation.queryParameters, declared, `query ${operation.id}`)) return "refuse";
    // Body: the JSON parser reads any request said to be JSON, whatever the route (strict: an object or an array).
    const type = request.headers["content-type"] ?? "";
    const isJson = /^application\/json\b/.test(type);
    let parsed: unknown = {};
    if (request.body !== undefined && isJson) {
      if (request.headers["content-encoding"] || /charset=(?!utf-)/i.test(type)) return "refuse";
      if (/charset=(?!utf-8\b)/i.test(type)) return "lenient";
      // body-parser drops a byte order mark; its whitespace is JSON's.
      const text = request.body.toString("utf8").replace(/^\ufeff/, "");
      if (!/^[ \t\n\r]*[[{]/.test(text)) return "refuse";
      try {
        parsed = JSON.parse(text) as unknown;
      } catch {
        return "refuse";
      }
    }
    const body = operation.body;
    if (body?.contentType === "application/json") {
      if (request.body !== undefined && !isJson) return "refuse";
      return description.validBody(operation, parsed) ? "documented" : "refuse";
    }
    if (body?.contentType === "multipart/form-data") {
      return !/^multipart\/form-data\b/.test(type) || request.brokenForm === true ? "refuse" : "documented";
    }
    return "documented";
  }

  /** Why the answer is wrong, or undefined. */
  async function problemWith(
    operation: Operation,
    request: Request,
    answer: RawAnswer,
    expected: ReturnType<typeof verdict>,
  ): Promise<string | undefined> {
    if (answer.status >= 500) return `answered ${answer.status}`;
    const declared = operation.statuses.includes(String(answer.status));
    if (answer.status >= 400) {
      if (!isErrorEnvelope(answer.json)) return `answered ${answer.status} without the error envelope`;
      if (expected === "documented" && !declared && !HTTP_LAYER_STATUSES.has(answer.status)) {
        return `answered ${answer.status}, which the operation does not document`;
      }
    } else if (expected === "refuse") {
      return `accepted input that breaks its schema (${answer.status})`;
    } else if (expected === "documented" && !declared) {
      return `answered ${answer.status}, which the operation does not document`;
    }
    // The declared body, as every end-to-end answer is checked.
    const response = new Response(null, { status: answer.status, headers: { "content-type": answer.contentType } });
    return checkAgainstDocument(stack.gatewayUrl, operation.method, target(request), response, answer.json ?? (answer.text || undefined)).then(
      () => undefined,
      (error: unknown) => (error as Error).message.split("\n").slice(0, 3).join(" "),
    );
  }

  it(
    "refuses broken input with a 4xx in the envelope and answers valid input as documented, never 5xx, never hanging",
    async () => {
      const only = process.env.FUZZ_ONLY;
      const operations = description.operations.filter((operation) => !(operation.id in SKIPPED) && (!only || operation.id.includes(only)));
      for (const id of Object.keys(SKIPPED)) expect(description.operations.map((operation) => operation.id)).toContain(id);
      // The seed replays a failure.
      console.log(
        `fuzz: seed ${SEED} (FUZZ_SEED), ${operations.length} operations, budget ${BUDGET_MS} ms (FUZZ_BUDGET_MS), runs ×${SCALE} (FUZZ_RUNS)`,
      );
      const started = Date.now();
      const deadline = started + BUDGET_MS;
      const failures: string[] = [];
      const counts: { id: string; invalid: number; valid: number; planned: number }[] = [];

      async function fuzz(operation: Operation, index: number) {
        const runs = FEWER_RUNS[operation.id] ?? RUNS;
        // Each operation its own client address (through the trusted loopback proxy): per-address rate limits are
        // neither shared with other files nor exhausted by another operation's runs.
        const address = `203.0.${113 + Math.floor(index / 250)}.${(index % 250) + 1}`;
        const headers = { "x-forwarded-for": address, ...(operation.authenticated ? { authorization: `Bearer ${user.token}` } : {}) };
        const count = {
          id: operation.id,
          invalid: 0,
          valid: 0,
          planned: Math.max(1, Math.round(runs.invalid * SCALE)) + Math.max(1, Math.round(runs.valid * SCALE)),
        };
        counts.push(count);
        for (const mode of ["invalid", "valid"] as const) {
          const arbitrary = mode === "invalid" ? invalidRequest(operation) : validRequest(operation);
          // A fair share of what is left of the budget; past it the remaining runs are skipped, but one always runs.
          const share = (deadline - Date.now()) / Math.max(1, (operations.length - index) / CONCURRENCY) / 2;
          const stop = Date.now() + share;
          const details = await fc.check(
            fc.asyncProperty(arbitrary, async (request) => {
              if (count[mode] > 0 && Date.now() > stop) return;
              count[mode]++;
              const expected = verdict(operation, request);
              // The request's own headers win: a mutation may replace the credentials.
              const wire = { method: operation.method, target: target(request), headers: { ...headers, ...request.headers }, body: request.body };
              const answer = await send(stack.gatewayUrl, wire, REQUEST_TIMEOUT_MS);
              const problem = await problemWith(operation, request, answer, expected);
              if (problem) {
                throw new Error(
                  `${operation.id} (${request.what}) ${problem}\n    ${wire.method} ${wire.target.slice(0, 300)} ${request.body?.toString().slice(0, 300) ?? ""}\n    → ${answer.status} ${answer.text.slice(0, 300)}`,
                );
              }
            }),
            { seed: SEED + stableNumber(operation.id), numRuns: Math.max(1, Math.round(runs[mode] * SCALE)), endOnFailure: true },
          );
          if (details.failed) {
            const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
            failures.push(`${error}\n    replay: FUZZ_SEED=${SEED} FUZZ_RUNS=${SCALE} FUZZ_ONLY="${operation.id}"`);
          }
        }
      }

      // A small pool: operations side by side, each one's runs in order.
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < operations.length) {
            const index = next++;
            await fuzz(operations[index], index);
          }
        }),
      );
      const total = counts.reduce((sum, count) => sum + count.invalid + count.valid, 0);
      // What the run covered.
      console.log(
        `fuzz: ${total} requests over ${counts.length} operations in ${Date.now() - started} ms; cut short by the budget: ${
          counts
            .filter((count) => count.invalid + count.valid < count.planned)
            .map((count) => count.id)
            .join(", ") || "none"
        }`,
      );
      expect(failures).toEqual([]);
      expect(counts.every((count) => count.invalid > 0 && count.valid > 0)).toBe(true);
    },
    BUDGET_MS + 60_000,
  );
});
