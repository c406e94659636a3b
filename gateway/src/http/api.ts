import { AppError, drainAfterEarlyAnswer } from "@study/platform";
import type { Express, NextFunction, Request, RequestHandler, Response } from "express";
import { z } from "zod";
import { currentAuth, type AuthenticatedSession, type AuthenticatedUser } from "../identity/adapters/http/session";
import { isRateLimiter } from "./rate-limit";
import { parse } from "./validate";

type Method = "get" | "post" | "put" | "patch" | "delete";

export interface ResponseSpec {
  description: string;
  /** Body schema (omit for bodies that are not JSON, e.g. redirects). */
  schema?: z.ZodType;
  /** Content type when not JSON (e.g. text/html). */
  contentType?: string;
}

/** The caller an `auth: true` route's handler receives, proven by the session before the handler runs. */
export interface Caller {
  userId: string;
  user: AuthenticatedUser;
  authSession: AuthenticatedSession;
}

/** A public route's handler has no caller: its input has none of Caller's fields. */
type NoCaller = { [K in keyof Caller]?: never };

export type RouteInput<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType, A extends boolean = boolean> = {
  body: z.output<B>;
  query: z.output<Q>;
  params: z.output<P>;
  req: Request;
  res: Response;
} & (A extends true ? Caller : NoCaller);

/**
 * One HTTP operation: the schemas that validate its input are the ones the OpenAPI document is built from,
 * so the document cannot drift from what the gateway accepts.
 */
export interface RouteSpec<
  B extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
  A extends boolean = boolean,
> {
  method: Method;
  /** Express path, e.g. `/api/courses/:id`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** Needs a session (cookie or Bearer); answers 401 otherwise. The handler then receives the caller (`userId`, …). */
  auth: A;
  body?: B;
  /** A body the route reads itself, in this type (e.g. a multipart upload), instead of a JSON `body`. */
  accepts?: "multipart/form-data";
  /**
   * A body the route takes as raw bytes (req.body is a Buffer, e.g. a signed webhook whose signature covers the
   * bytes): documented with this schema, neither validated nor refused for its content type here.
   */
  rawBody?: { contentType: string; schema: z.ZodType; description: string };
  query?: Q;
  params?: P;
  /** Runs before validation (e.g. a rate limiter). */
  before?: RequestHandler[];
  responses: Record<number, ResponseSpec>;
  handler(input: RouteInput<B, Q, P, A>): Promise<void> | void;
}

export function route<
  B extends z.ZodType = z.ZodUndefined,
  Q extends z.ZodType = z.ZodUndefined,
  P extends z.ZodType = z.ZodUndefined,
  A extends boolean = boolean,
>(spec: RouteSpec<B, Q, P, A>): RouteSpec {
  return spec;
}

/** The error envelope of the spec, shared by every error response in the document. */
export const errorEnvelope = z
  .object({
    success: z.literal(false),
    error: z.string(),
    code: z.string(),
    details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
    action: z.string().optional(),
  })
  .meta({ id: "Error" });

export const dataEnvelope = <S extends z.ZodType>(data: S) => z.object({ success: z.literal(true), data, message: z.string() });
export const messageEnvelope = z.object({ success: z.literal(true), message: z.string() }).meta({ id: "Message" });

/** Error responses every operation can give, added to the document for each. */
function standardErrors(spec: RouteSpec): Record<number, ResponseSpec> {
  const errors: Record<number, ResponseSpec> = {};
  if (spec.body || spec.query || spec.params) errors[400] = { description: "Invalid input (VALIDATION_ERROR with details)", schema: errorEnvelope };
  if (spec.body || spec.accepts) {
    errors[415] = { description: `A body that is not ${requestType(spec)} (UNSUPPORTED_MEDIA_TYPE)`, schema: errorEnvelope };
  }
  if (spec.auth) errors[401] = { description: "Not signed in (UNAUTHORIZED) or session expired (SESSION_EXPIRED)", schema: errorEnvelope };
  if (spec.before?.some(isRateLimiter)) {
    errors[429] = { description: "Too many requests from this client (RATE_LIMITED, action RETRY_LATER)", schema: errorEnvelope };
  }
  errors[500] = { description: "Unexpected failure (INTERNAL_ERROR)", schema: errorEnvelope };
  return errors;
}

/** `:id` and Express 5 wildcards (`*key`, one or more segments) become OpenAPI path parameters. */
const toOpenApiPath = (path: string) => path.replace(/[:*](\w+)/g, "{$1}");

const requestType = (spec: RouteSpec) => spec.accepts ?? "application/json";

/**
 * A body sent in a type the route does not read would be ignored and then reported as missing fields: it is
 * refused for what it is, naming the type the route takes.
 */
function checkRequestType(spec: RouteSpec, req: Request, res: Response): void {
  const hasBody = req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
  if (!(spec.body || spec.accepts) || !hasBody || req.is(requestType(spec))) return;
  // A JSON body was read by then; an upload's was not: read and drop it so that the answer reaches the client.
  drainAfterEarlyAnswer(req, res);
  throw new AppError("validation", "UNSUPPORTED_MEDIA_TYPE", `This endpoint takes a ${requestType(spec)} body`, {
    details: [{ field: "content-type", message: `must be ${requestType(spec)}` }],
  });
}

/**
 * The JSON Schemas of the document. zod writes each schema named with `.meta({ id })` into a `$defs` of the
 * schema that uses it; here they move to `components/schemas`, once for the whole document, and every
 * reference points there (a `#/$defs/…` reference would be resolved against the document's root).
 */
class SchemaComponents {
  readonly schemas: Record<string, unknown> = {};

  convert(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
    const {
      $schema: _dialect,
      $defs,
      ...root
    } = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as {
      $schema?: string;
      $defs?: Record<string, unknown>;
    } & Record<string, unknown>;
    const targets = new Map<string, string>();
    for (const [name, definition] of Object.entries($defs ?? {})) {
      const known = this.schemas[name];
      // A named schema with transforms or defaults reads differently as a request and as a response.
      const same = known === undefined || JSON.stringify(known) === JSON.stringify(pointAt(definition, new Map()));
      targets.set(name, same ? name : `${name}${io === "input" ? "Input" : "Output"}`);
    }
    for (const [name, definition] of Object.entries($defs ?? {})) {
      const target = targets.get(name) ?? name;
      const rewritten = pointAt(definition, targets);
      if (target in this.schemas && JSON.stringify(this.schemas[target]) !== JSON.stringify(rewritten)) {
        throw new Error(`Two different schemas are named ${target} in the OpenAPI document`);
      }
      this.schemas[target] = rewritten;
    }
    return pointAt(root, targets) as Record<string, unknown>;
  }
}

/** A copy of a JSON Schema whose `#/$defs/X` references point at `#/components/schemas/<renamed X>`. */
function pointAt(schema: unknown, targets: Map<string, string>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => pointAt(item, targets));
  if (schema === null || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => {
      if (key === "$ref" && typeof value === "string" && value.startsWith("#/$defs/")) {
        const name = value.slice("#/$defs/".length);
        return [key, `#/components/schemas/${targets.get(name) ?? name}`];
      }
      return [key, pointAt(value, targets)];
    }),
  );
}

/** Parameters (query or path) of an operation, from an object schema. */
function parameters(components: SchemaComponents, schema: z.ZodType | undefined, where: "query" | "path") {
  if (!schema) return [];
  const object = components.convert(schema, "input") as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === "path" || (object.required ?? []).includes(name),
    schema: property,
  }));
}

/** The caller `requireSession` proved for this request. */
function caller(res: Response): Caller {
  const { user, session } = currentAuth(res);
  return { userId: user.id, user, authSession: session };
}

/** The API: every operation is declared once, mounted from here and described from here. */
export class ApiRegistry {
  readonly routes: RouteSpec[] = [];

  add(...specs: RouteSpec[]): this {
    this.routes.push(...specs);
    return this;
  }

  /** Mounts every route on the app, with validation, and `requireSession` where the route needs a session. */
  mount(app: Express, requireSession: RequestHandler): void {
    for (const spec of this.routes) {
      const handlers: RequestHandler[] = [...(spec.before ?? [])];
      if (spec.auth) handlers.push(requireSession);
      handlers.push(async (req: Request, res: Response, next: NextFunction) => {
        checkRequestType(spec, req, res);
        const input = {
          body: spec.body ? parse(spec.body, req.body ?? {}, "body") : undefined,
          query: spec.query ? parse(spec.query, req.query, "query") : undefined,
          params: spec.params ? parse(spec.params, req.params, "path") : undefined,
          req,
          res,
        };
        await spec.handler(spec.auth ? { ...input, ...caller(res) } : input);
        if (!res.headersSent) next(new Error(`${spec.method.toUpperCase()} ${spec.path} sent no response`));
      });
      app[spec.method](spec.path, ...handlers);
    }
  }

  /** OpenAPI 3.1 document of every registered route. */
  openApiDocument(info: { title: string; version: string; description?: string; serverUrl?: string }) {
    const paths: Record<string, Record<string, unknown>> = {};
    const components = new SchemaComponents();
    for (const spec of this.routes) {
      const responses: Record<string, unknown> = {};
      for (const [status, response] of Object.entries({ ...standardErrors(spec), ...spec.responses })) {
        const { description, schema, contentType } = response;
        // A body that is not JSON (an event stream, a page) is documented by its type even without a schema.
        responses[status] =
          schema || contentType
            ? { description, content: { [contentType ?? "application/json"]: schema ? { schema: components.convert(schema, "output") } : {} } }
            : { description };
      }
      const operation: Record<string, unknown> = {
        operationId: `${spec.method}${toOpenApiPath(spec.path).replace(/[^a-zA-Z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
        summary: spec.summary,
        tags: [spec.tag],
        parameters: [...parameters(components, spec.params, "path"), ...parameters(components, spec.query, "query")],
        responses,
      };
      if (spec.description) operation.description = spec.description;
      if (spec.body) operation.requestBody = { required: true, content: { "application/json": { schema: components.convert(spec.body, "input") } } };
      else if (spec.accepts) operation.requestBody = { required: true, content: { [spec.accepts]: { schema: { type: "object" } } } };
      else if (spec.rawBody) {
        const { contentType, schema, description } = spec.rawBody;
        operation.requestBody = { required: true, description, content: { [contentType]: { schema: components.convert(schema, "input") } } };
      }
      if (spec.auth) operation.security = [{ bearer: [] }, { sessionCookie: [] }, { specSessionCookie: [] }];
      (paths[toOpenApiPath(spec.path)] ??= {})[spec.method] = operation;
    }
    return {
      openapi: "3.1.0",
      info: { title: info.title, version: info.version, description: info.description },
      servers: info.serverUrl ? [{ url: info.serverUrl }] : undefined,
      paths,
      components: {
        schemas: components.schemas,
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", description: "The session token (session.token of sign-in/sign-up)" },
          sessionCookie: { type: "apiKey", in: "cookie", name: "better-auth.session_token", description: "Set by sign-in (signed value)" },
          specSessionCookie: {
            type: "apiKey",
            in: "cookie",
            name: "session_token",
            description:
              "The spec's name; a dotted name ending in `.session-token` is read too. Only the signed value `<token>.<signature>` " +
              "(as in better-auth.session_token) is taken, since a sibling subdomain may set such a cookie; a raw token only " +
              "under a `__Host-` name (e.g. `__Host-study.session-token`).",
          },
        },
      },
    };
  }
}
