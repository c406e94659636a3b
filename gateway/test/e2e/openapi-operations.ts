import { Agent, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

/**
 * The gateway's operations as its own `/openapi.json` describes them, and a raw HTTP client to call them with
 * any bytes at all: what the authorization matrix (`authz-matrix.test.ts`) and the fuzzer (`fuzz.test.ts`) are
 * generated from, so a route added to the registry is covered by both without editing them.
 */

export type JsonSchema = Record<string, unknown>;

export interface Parameter {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  /** "GET /api/courses/{id}": how the tests name an operation. */
  id: string;
  method: string;
  /** The OpenAPI path template. */
  path: string;
  summary: string;
  /** Declares a security requirement: answers 401 without a session. */
  authenticated: boolean;
  pathParameters: Parameter[];
  queryParameters: Parameter[];
  /** The request body: its media type and its schema ({type: object} for multipart forms). */
  body?: { contentType: string; schema: JsonSchema };
  /** Declared statuses, as strings ("200", "404"). */
  statuses: string[];
  /** Each declared status's description. */
  descriptions: Record<string, string>;
}

interface OpenApiOperation {
  summary?: string;
  parameters?: { name: string; in: string; required?: boolean; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { description?: string }>;
  security?: unknown[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema> };
}

const DOCUMENT_ID = "https://gateway.test/request-schemas.json";

/** The document, its operations, and validators of request input against its schemas. */
export class ApiDescription {
  readonly operations: Operation[];
  /** Request bodies: JSON as parsed. */
  private readonly bodies = new Ajv2020({ strict: false, allErrors: false, logger: false });
  /** Parameters arrive as text: "42" is a valid integer parameter (OpenAPI's form style), as zod's coercions read it. */
  private readonly parameters = new Ajv2020({ strict: false, allErrors: false, logger: false, coerceTypes: true });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: OpenApiDocument) {
    for (const ajv of [this.bodies, this.parameters]) {
      addFormats(ajv);
      ajv.addSchema({ components: document.components, $id: DOCUMENT_ID });
    }
    this.operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => {
        const parameters = operation.parameters ?? [];
        const [contentType, media] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
        const responses = operation.responses ?? {};
        return {
          id: `${method.toUpperCase()} ${path}`,
          method: method.toUpperCase(),
          path,
          summary: operation.summary ?? "",
          authenticated: (operation.security ?? []).length > 0,
          pathParameters: parameters.filter((p) => p.in === "path").map(({ name, schema }) => ({ name, required: true, schema })),
          queryParameters: parameters
            .filter((p) => p.in === "query")
            .map(({ name, required, schema }) => ({ name, required: required === true, schema })),
          body: contentType ? { contentType, schema: media?.schema ?? {} } : undefined,
          statuses: Object.keys(responses),
          descriptions: Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, response.description ?? ""])),
        };
      }),
    );
  }

  /** The schema itself, or the component a `$ref` names (followed until it is not a reference). */
  resolve(schema: JsonSchema): JsonSchema {
    let current = schema;
    for (let hops = 0; typeof current.$ref === "string"; hops++) {
      const name = current.$ref.replace("#/components/schemas/", "");
      const target = this.document.components.schemas[name];
      if (!target || hops > 20) throw new Error(`unresolvable reference ${current.$ref}`);
      current = target;
    }
    return current;
  }

  /** Whether a JSON body is valid for the operation's body schema. */
  validBody(operation: Operation, body: unknown): boolean {
    // Validation without coercion or defaults leaves the value as it is.
    return this.validate(this.bodies, `body ${operation.id}`, operation.body?.schema ?? {}, body);
  }

  /**
   * Whether parameters, as the gateway reads them (a string, or an array when repeated), are valid for the
   * operation: every required one present, each matching its schema.
   */
  validParameters(parameters: Parameter[], values: Record<string, string | string[] | undefined>, what: string): boolean {
    const schema = {
      type: "object",
      properties: Object.fromEntries(parameters.map((p) => [p.name, p.schema])),
      required: parameters.filter((p) => p.required).map((p) => p.name),
    };
    const present = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
    return this.validate(this.parameters, what, schema, present);
  }

  private validate(ajv: Ajv2020, key: string, schema: JsonSchema, value: unknown): boolean {
    let validator = this.validators.get(key);
    if (!validator) {
      // References inside the operation's schema point into the document registered above.
      validator = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`)) as JsonSchema);
      this.validators.set(key, validator);
    }
    return validator(value);
  }
}

/** Reads the gateway's document. */
export async function describeApi(gatewayUrl: string): Promise<ApiDescription> {
  const response = await fetch(`${gatewayUrl}/openapi.json`);
  if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
  return new ApiDescription((await response.json()) as OpenApiDocument);
}

/** The path with each `{name}` replaced by its value, which must already be percent-encoded. */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for {${name}} of ${template}`);
    return value;
  });
}

/** Percent-encodes every byte of the UTF-8 text but the unreserved ones (a lone surrogate becomes U+FFFD, as in any UTF-8 client). */
export function encodeComponent(text: string): string {
  let encoded = "";
  for (const byte of Buffer.from(text, "utf8")) {
    const char = String.fromCharCode(byte);
    encoded += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return encoded;
}

/** A query string of already-encoded pairs (a name may repeat). */
export const queryString = (pairs: [string, string][]) =>
  pairs.length === 0 ? "" : `?${pairs.map(([name, value]) => `${name}=${value}`).join("&")}`;

export interface RawRequest {
  method: string;
  /** Path and query, percent-encoded as they go on the wire. */
  target: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  contentType: string;
  /** The body as text (empty for an event stream, which is not read). */
  text: string;
  /** The body as JSON, or undefined when it is not JSON. */
  json: unknown;
  elapsedMs: number;
}

/** Connections kept open between requests: thousands of requests, not thousands of TCP handshakes. */
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** Closes the kept connections (at the end of a file, so that jest's worker can exit). */
export const closeConnections = () => agent.destroy();

/** Bodies are read up to this size: enough for any JSON answer, and a file download stops there. */
const MAX_READ_BYTES = 4 * 1024 * 1024;

/**
 * Sends exactly these bytes and resolves with the answer; rejects when no complete answer arrives within
 * `timeoutMs` (a hang is a failure, never a wait). An event stream is answered once its head arrives.
 */
export function send(gatewayUrl: string, request: RawRequest, timeoutMs: number): Promise<RawAnswer> {
  const { hostname, port } = new URL(gatewayUrl);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...request.headers };
    if (request.body !== undefined) headers["content-length"] = String(Buffer.byteLength(request.body));
    const outgoing = httpRequest({ host: hostname, port, method: request.method, path: request.target, headers, agent });
    const timer = setTimeout(() => {
      outgoing.destroy(new Error(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(new Error(`${request.method} ${request.target.slice(0, 300)}: ${error.message}`, { cause: error }));
    };
    outgoing.on("error", fail);
    outgoing.on("response", (incoming) => {
      const contentType = incoming.headers["content-type"] ?? "";
      const done = (text: string) => {
        clearTimeout(timer);
        let json: unknown;
        if (/^application\/json\b/.test(contentType)) {
          try {
            json = JSON.parse(text) as unknown;
          } catch {
            json = undefined;
          }
        }
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, contentType, text, json, elapsedMs: Date.now() - started });
      };
      if (contentType.startsWith("text/event-stream")) {
        // A stream stays open for as long as what it follows lasts: its head is the answer.
        incoming.destroy();
        done("");
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_READ_BYTES) chunks.push(chunk);
      });
      incoming.on("end", () => done(Buffer.concat(chunks).toString("utf8")));
      incoming.on("error", fail);
    });
    outgoing.end(request.body);
  });
}

/** The spec's error envelope, exactly: {success: false, error, code, details?, action?}. */
export function isErrorEnvelope(body: unknown): boolean {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  const { success, error, code, details, action, ...rest } = body as Record<string, unknown>;
  const detailsOk =
    details === undefined ||
    (Array.isArray(details) &&
      details.every(
        (detail) =>
          typeof detail === "object" &&
          detail !== null &&
          typeof (detail as Record<string, unknown>).field === "string" &&
          typeof (detail as Record<string, unknown>).message === "string",
      ));
  return (
    success === false &&
    typeof error === "string" &&
    typeof code === "string" &&
    detailsOk &&
    (action === undefined || typeof action === "string") &&
    Object.keys(rest).length === 0
  );
}

/** The code of an error envelope, or undefined. */
export const errorCode = (body: unknown): string | undefined =>
  typeof body === "object" && body !== null && typeof (body as { code?: unknown }).code === "string" ? (body as { code: string }).code : undefined;

/** A multipart/form-data body of text fields and one file part (or none). */
export function multipartBody(
  fields: [string, string][],
  file?: { name: string; type: string; bytes: Buffer },
  boundary = `----study${Math.random().toString(16).slice(2)}`,
): { contentType: string; body: Buffer } {
  const parts: Buffer[] = fields.map(([name, value]) =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`),
      Buffer.from(value, "utf8"),
      Buffer.from("\r\n"),
    ]),
  );
  if (file) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`),
      file.bytes,
      Buffer.from("\r\n"),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(parts) };
}
