import { request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { AppError, createLogger } from "@study/platform";
import { httpClient, validateOpenApiDocument } from "@study/testkit";
import express, { type RequestHandler } from "express";
import { z } from "zod";
import { ApiRegistry, dataEnvelope, errorEnvelope, route } from "../../src/http/api";
import { errorHandler, notFound } from "../../src/http/errors";
import { idParams } from "../../src/http/params";
import { intParam } from "../../src/http/query";
import { answerClientErrors } from "../../src/http/server";
import { MAX_NESTING, parse } from "../../src/http/validate";

/** The details of the VALIDATION_ERROR that `parse` throws for `input`. */
function detailsOf(schema: z.ZodType, input: unknown, what?: string) {
  try {
    parse(schema, input, what);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("VALIDATION_ERROR");
    return (error as AppError).details;
  }
  throw new Error("the input was accepted");
}

describe("validation details", () => {
  it("gives one detail per field, the first problem of each", () => {
    const query = z.object({ limit: intParam(1, 100, 20), offset: intParam(0, Number.MAX_SAFE_INTEGER, 0) });
    expect(detailsOf(query, { limit: "99999999999999999999999" }, "query")).toEqual([{ field: "limit", message: "must be at most 100" }]);
    const body = z.object({
      name: z
        .string()
        .min(3)
        .regex(/^[a-z]+$/),
    });
    expect(detailsOf(body, { name: "A" })).toEqual([{ field: "name", message: "must be at least 3 characters" }]);
  });

  it("words zod's own problems the project's way, and keeps a message the schema gives", () => {
    const body = z.strictObject({
      name: z.string().trim().min(1, "is required").max(5),
      title: z.string().min(1),
      count: z.number().int().min(1),
      kind: z.enum(["text", "url"]),
      email: z.email(),
      id: z.uuid(),
      tags: z.array(z.string()).max(1),
      when: z.iso.datetime(),
      flag: z.boolean(),
    });
    const details = detailsOf(body, {
      name: "  ",
      title: "",
      count: 0,
      kind: "pdf",
      email: "x",
      id: "y",
      tags: ["a", "b"],
      when: "noon",
      flag: "yes",
      extra: 1,
    });
    expect(details).toEqual([
      { field: "name", message: "is required" },
      { field: "title", message: "must not be empty" },
      { field: "count", message: "must be at least 1" },
      { field: "kind", message: "must be one of text, url" },
      { field: "email", message: "must be a valid e-mail address" },
      { field: "id", message: "must be a UUID" },
      { field: "tags", message: "must have at most 1 entries" },
      { field: "when", message: "must be an ISO 8601 date-time" },
      { field: "flag", message: "must be true or false" },
      { field: "extra", message: "is not a known field" },
    ]);
    expect(detailsOf(body.pick({ name: true, count: true }), { count: "2" })).toEqual([
      { field: "name", message: "is required" },
      { field: "count", message: "must be a number" },
    ]);
  });

  it("refuses a NUL character in any text, naming the field, before the schema runs", () => {
    const body = z.object({ title: z.string(), answers: z.array(z.object({ answer: z.string() })) });
    expect(detailsOf(body, { title: "a\u0000b", answers: [{ answer: "ok" }, { answer: "\u0000" }] }, "body")).toEqual([
      { field: "title", message: "must not contain a NUL character" },
      { field: "answers.1.answer", message: "must not contain a NUL character" },
    ]);
    expect(detailsOf(z.object({ semester: z.string().optional() }), { semester: "\u0000" }, "query")).toEqual([
      { field: "semester", message: "must not contain a NUL character" },
    ]);
    expect(detailsOf(z.string(), "\u0000", "body")).toEqual([{ field: "body", message: "must not contain a NUL character" }]);
  });
});

describe("deeply nested input", () => {
  it("refuses arrays or objects nested deeper than any request of the API, without walking them recursively (found by fuzz.test.ts)", () => {
    const tooDeep = [{ field: "body", message: `must not nest arrays or objects more than ${MAX_NESTING} deep` }];
    const body = z.strictObject({ name: z.string(), tags: z.array(z.unknown()).optional() });
    expect(detailsOf(body, JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`), "body")).toEqual(tooDeep);
    expect(detailsOf(body, JSON.parse(`{"name":"x","tags":${'{"a":'.repeat(60_000)}1${"}".repeat(60_000)}}`), "body")).toEqual(tooDeep);
    // Up to the limit, input is read as before.
    const nested = JSON.parse(`${"[".repeat(MAX_NESTING - 2)}${"]".repeat(MAX_NESTING - 2)}`) as unknown;
    expect(parse(body, { name: "x", tags: [nested] }, "body")).toEqual({ name: "x", tags: [nested] });
  });
});

describe("the HTTP layer's own refusals", () => {
  let server: Server;
  let baseUrl: string;
  let api: ReturnType<typeof httpClient>;
  // As the gateway's session check does, a valid token leaves the caller for the handler in res.locals.auth.
  const requireSession: RequestHandler = (req, res, next) => {
    if (req.header("authorization") !== "Bearer valid") return next(AppError.unauthenticated());
    const at = new Date("2026-11-20T10:00:00.000Z");
    res.locals.auth = {
      user: { id: "user-1", name: "Ada", email: "ada@example.com", emailVerified: true, createdAt: at, updatedAt: at },
      session: { id: "session-1", token: "valid", userId: "user-1", expiresAt: at, createdAt: at, updatedAt: at },
    };
    next();
  };

  const registry = new ApiRegistry().add(
    route({
      method: "post",
      path: "/api/things",
      tag: "Things",
      summary: "Create a thing",
      auth: true,
      body: z.strictObject({ name: z.string().min(1).max(20) }),
      responses: { 201: { description: "Created", schema: dataEnvelope(z.object({ name: z.string() })) } },
      handler: ({ body, res }) => void res.status(201).json({ success: true, data: body, message: "Created" }),
    }),
    route({
      method: "get",
      path: "/api/things/:id",
      tag: "Things",
      summary: "Read a thing",
      auth: true,
      params: idParams,
      responses: {
        200: { description: "The thing", schema: dataEnvelope(z.object({ id: z.string() })) },
        404: { description: "No such thing", schema: errorEnvelope },
      },
      handler: ({ params, res }) => void res.json({ success: true, data: { id: params.id }, message: "Found" }),
    }),
    route({
      method: "get",
      path: "/api/drifting/:id",
      tag: "Things",
      summary: "Declares a date that it sends as null, and no 202",
      auth: false,
      params: idParams,
      responses: { 200: { description: "A thing", schema: dataEnvelope(z.object({ date: z.iso.datetime() })) } },
      handler: ({ params, res }) =>
        void res.status(params.id === "accepted" ? 202 : 200).json({ success: true, data: { date: null }, message: "Found" }),
    }),
    route({
      method: "post",
      path: "/api/things/:id/files",
      tag: "Things",
      summary: "Upload a file to a thing",
      auth: true,
      accepts: "multipart/form-data",
      params: idParams,
      responses: { 201: { description: "Stored" } },
      handler: ({ req, res }) => void req.resume().on("end", () => res.status(201).end()),
    }),
  );

  beforeAll(async () => {
    const app = express();
    app.use(express.json());
    registry.add(
      route({
        method: "get",
        path: "/openapi.json",
        tag: "System",
        summary: "The document",
        auth: false,
        responses: { 200: { description: "The document", schema: z.object({ openapi: z.string() }).loose() } },
        handler: ({ res }) => void res.json(registry.openApiDocument({ title: "Things", version: "1" })),
      }),
    );
    registry.mount(app, requireSession);
    app.use(notFound);
    app.use(errorHandler(createLogger("test", "silent")));
    server = await new Promise((resolve) => {
      const listening = app.listen(0, () => resolve(listening));
    });
    answerClientErrors(server);
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    api = httpClient(baseUrl);
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const validationError = (field: string, message: string) => ({
    success: false,
    error: expect.any(String),
    code: "VALIDATION_ERROR",
    details: [{ field, message }],
  });

  it("answers a path parameter that is not valid percent-encoding with 400, with or without credentials", async () => {
    for (const id of ["%E0%A4%A", "%", "%ZZ", "%C0%AF"]) {
      for (const token of [undefined, "valid"]) {
        const response = await api("GET", `/api/things/${id}`, { token });
        expect({ id, token, status: response.status, body: response.body }).toEqual({
          id,
          token,
          status: 400,
          body: validationError("path", "is not valid percent-encoding"),
        });
      }
    }
    expect((await api("GET", "/api/things/caf%C3%A9", { token: "valid" })).body.data).toEqual({ id: "café" });
  });

  it("refuses NUL in a body, a path parameter and the query the same way", async () => {
    const body = await api("POST", "/api/things", { token: "valid", body: { name: "a\u0000" } });
    expect(body.status).toBe(400);
    expect(body.body).toEqual(validationError("name", "must not contain a NUL character"));
    const path = await api("GET", "/api/things/%00", { token: "valid" });
    expect(path.status).toBe(400);
    expect(path.body).toEqual(validationError("id", "must not contain a NUL character"));
  });

  it("answers a body that is not compressed as its Content-Encoding says with 400", async () => {
    for (const encoding of ["gzip", "br", "deflate"]) {
      const response = await api("POST", "/api/things", { token: "valid", rawBody: '{"name":"plain"}', headers: { "content-encoding": encoding } });
      expect({ encoding, status: response.status, body: response.body }).toEqual({
        encoding,
        status: 400,
        body: validationError("body", `is not valid ${encoding} data`),
      });
    }
    const compressed = await fetch(`${baseUrl}/api/things`, {
      method: "POST",
      headers: { authorization: "Bearer valid", "content-type": "application/json", "content-encoding": "gzip" },
      body: gzipSync('{"name":"zipped"}'),
    });
    expect(compressed.status).toBe(201);
  });

  it("answers a body of a type the route does not take with 415, naming the type it takes", async () => {
    const text = await api("POST", "/api/things", {
      token: "valid",
      rawBody: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(text.status).toBe(415);
    expect(text.body).toEqual({
      success: false,
      error: "This endpoint takes a application/json body",
      code: "UNSUPPORTED_MEDIA_TYPE",
      details: [{ field: "content-type", message: "must be application/json" }],
    });
    const json = await api("POST", "/api/things/1/files", { token: "valid", body: { file: "x" } });
    expect(json.status).toBe(415);
    expect(json.body.details).toEqual([{ field: "content-type", message: "must be multipart/form-data" }]);
    // No body at all is not a type problem: the fields are reported missing.
    expect((await api("POST", "/api/things", { token: "valid" })).body).toEqual(validationError("name", "is required"));
  });

  it("answers a URL or headers over Node's limit with 431 in the envelope", async () => {
    const answer = (path: string, headers: Record<string, string>) =>
      new Promise<{ status: number; type: string | undefined; body: unknown }>((resolve, reject) => {
        const request = httpRequest(`${baseUrl}${path}`, { headers }, (response) => {
          let text = "";
          response.on("data", (chunk: Buffer) => (text += chunk.toString()));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, type: response.headers["content-type"], body: JSON.parse(text) }));
        });
        request.on("error", reject);
        request.end();
      });
    const expected = {
      status: 431,
      type: "application/json; charset=utf-8",
      body: { success: false, error: "The URL or the headers are too large", code: "HEADERS_TOO_LARGE" },
    };
    expect(await answer(`/api/things/${"a".repeat(20_000)}`, {})).toEqual(expected);
    expect(await answer("/api/things/1", { "x-padding": "b".repeat(20_000) })).toEqual(expected);
  });

  it("fails a test whose answer the OpenAPI document does not describe (the test kit's client checks every answer)", async () => {
    await expect(api("GET", "/api/drifting/1")).rejects.toThrow(
      /GET \/api\/drifting\/1 → 200 does not match the OpenAPI document:\n {2}\/data\/date must be string/,
    );
    await expect(api("GET", "/api/drifting/accepted")).rejects.toThrow("202 is not a declared response of GET /api/drifting/{id}");
    // An error the operation does not list must still be the envelope.
    expect((await api("GET", "/api/drifting/%ZZ")).status).toBe(400);
  });

  it("describes the operations in a valid OpenAPI 3.1 document, shared schemas under components/schemas", async () => {
    const { body: document } = await api("GET", "/openapi.json");
    expect(JSON.stringify(document)).not.toContain("$defs");
    expect(document.components.schemas.Error).toMatchObject({ type: "object", required: ["success", "error", "code"] });
    expect(document.paths["/api/things"].post.responses["415"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
    expect(document.paths["/api/things/{id}/files"].post.requestBody.content).toHaveProperty(["multipart/form-data"]);
    expect(await validateOpenApiDocument(document)).toEqual({ valid: true, errors: null });
  });
});
