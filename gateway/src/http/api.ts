import type { Express, NextFunction, Request, RequestHandler, Response } from "express";
import { z } from "zod";
import { parse } from "./validate";

type Method = "get" | "post" | "put" | "patch" | "delete";

export interface ResponseSpec {
  description: string;
  /** Body schema (omit for bodies that are not JSON, e.g. redirects). */
  schema?: z.ZodType;
  /** Content type when not JSON (e.g. text/html). */
  contentType?: string;
}

export interface RouteInput<B extends z.ZodType, Q extends z.ZodType, P extends z.ZodType> {
  body: z.output<B>;
  query: z.output<Q>;
  params: z.output<P>;
  req: Request;
  res: Response;
}

/**
 * One HTTP operation: the schemas that validate its input are the ones the OpenAPI document is built from,
 * so the document cannot drift from what the gateway accepts.
 */
export interface RouteSpec<B extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, P extends z.ZodType = z.ZodType> {
  method: Method;
  /** Express path, e.g. `/api/courses/:id`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** Needs a session (cookie or Bearer); answers 401 otherwise. */
  auth: boolean;
  body?: B;
  query?: Q;
  params?: P;
  /** Runs before validation (e.g. a rate limiter). */
  before?: RequestHandler[];
  responses: Record<number, ResponseSpec>;
  handler(input: RouteInput<B, Q, P>): Promise<void> | void;
}

export function route<B extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, P extends z.ZodType = z.ZodUndefined>(
  spec: RouteSpec<B, Q, P>,
): RouteSpec {
  return spec as unknown as RouteSpec;
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

export const dataEnvelope = <S extends z.ZodType>(data: S) =>
  z.object({ success: z.literal(true), data, message: z.string() });
export const messageEnvelope = z.object({ success: z.literal(true), message: z.string() }).meta({ id: "Message" });

/** Error responses every operation can give, added to the document for each. */
function standardErrors(spec: RouteSpec): Record<number, ResponseSpec> {
  const errors: Record<number, ResponseSpec> = {};
  if (spec.body || spec.query || spec.params) errors[400] = { description: "Invalid input (VALIDATION_ERROR with details)", schema: errorEnvelope };
  if (spec.auth) errors[401] = { description: "Not signed in (UNAUTHORIZED) or session expired (SESSION_EXPIRED)", schema: errorEnvelope };
  errors[500] = { description: "Unexpected failure (INTERNAL_ERROR)", schema: errorEnvelope };
  return errors;
}

/** `:id` and Express 5 wildcards (`*key`, one or more segments) become OpenAPI path parameters. */
const toOpenApiPath = (path: string) => path.replace(/[:*](\w+)/g, "{$1}");

function jsonSchema(schema: z.ZodType, io: "input" | "output") {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Record<string, unknown>;
  return rest;
}

/** Parameters (query or path) of an operation, from an object schema. */
function parameters(schema: z.ZodType | undefined, where: "query" | "path") {
  if (!schema) return [];
  const object = jsonSchema(schema, "input") as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === "path" || (object.required ?? []).includes(name),
    schema: property,
  }));
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
        const input = {
          body: spec.body ? parse(spec.body, req.body ?? {}, "body") : undefined,
          query: spec.query ? parse(spec.query, req.query, "query") : undefined,
          params: spec.params ? parse(spec.params, req.params, "path") : undefined,
          req,
          res,
        };
        await spec.handler(input as never);
        if (!res.headersSent) next(new Error(`${spec.method.toUpperCase()} ${spec.path} sent no response`));
      });
      app[spec.method](spec.path, ...handlers);
    }
  }

  /** OpenAPI 3.1 document of every registered route. */
  openApiDocument(info: { title: string; version: string; description?: string; serverUrl?: string }) {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const spec of this.routes) {
      const responses: Record<string, unknown> = {};
      for (const [status, response] of Object.entries({ ...standardErrors(spec), ...spec.responses })) {
        const { description, schema, contentType } = response as ResponseSpec;
        responses[status] = schema
          ? { description, content: { [contentType ?? "application/json"]: { schema: jsonSchema(schema, "output") } } }
          : { description };
      }
      const operation: Record<string, unknown> = {
        operationId: `${spec.method}${toOpenApiPath(spec.path).replace(/[^a-zA-Z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
        summary: spec.summary,
        tags: [spec.tag],
        parameters: [...parameters(spec.params, "path"), ...parameters(spec.query, "query")],
        responses,
      };
      if (spec.description) operation.description = spec.description;
      if (spec.body) operation.requestBody = { required: true, content: { "application/json": { schema: jsonSchema(spec.body, "input") } } };
      if (spec.auth) operation.security = [{ bearer: [] }, { sessionCookie: [] }];
      (paths[toOpenApiPath(spec.path)] ??= {})[spec.method] = operation;
    }
    return {
      openapi: "3.1.0",
      info: { title: info.title, version: info.version, description: info.description },
      servers: info.serverUrl ? [{ url: info.serverUrl }] : undefined,
      paths,
      components: {
        securitySchemes: {
          bearer: { type: "http", scheme: "bearer", description: "The session token (session.token of sign-in/sign-up)" },
          sessionCookie: { type: "apiKey", in: "cookie", name: "better-auth.session_token" },
        },
      },
    };
  }
}
