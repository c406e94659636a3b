import { responseContract } from "./openapi-conformance";

export { validateOpenApiDocument } from "./openapi-conformance";

export interface HttpResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  body?: unknown;
  rawBody?: string;
  token?: string;
  cookie?: string;
  headers?: Record<string, string>;
}

/**
 * A tiny JSON client for end-to-end tests against the gateway. Every answer is checked against the gateway's
 * own OpenAPI document (declared status, declared body schema): a request whose answer the document does not
 * describe fails, so the document cannot drift from the code.
 */
export function httpClient(baseUrl: string) {
  return async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined || options.rawBody !== undefined) headers["content-type"] ??= "application/json";
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.cookie) headers.cookie = options.cookie;
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
      redirect: "manual",
    });
    const text = await response.text();
    const body = parseBody(text);
    await checkAgainstDocument(baseUrl, method, path, response, body);
    return { status: response.status, body: body as T, headers: response.headers };
  };
}

/**
 * Fails when the gateway's OpenAPI document does not describe this answer: a status the operation does not
 * declare, or a JSON body that does not match the declared schema (errors: the envelope).
 */
export async function checkAgainstDocument(baseUrl: string, method: string, path: string, response: Response, body: unknown): Promise<void> {
  if (path.split("?")[0] === "/openapi.json") return;
  // eslint-disable-next-line no-restricted-syntax -- a gateway that has just answered but cannot serve its document (stopped in between) fails no request: that answer goes unchecked
  const contract = await responseContract(baseUrl).catch(() => undefined);
  const problems = contract?.problems(method, path, response.status, response.headers.get("content-type"), body) ?? [];
  if (problems.length > 0) {
    throw new Error(
      `${method} ${path} → ${response.status} does not match the OpenAPI document:\n  ${problems.join("\n  ")}\n` +
        `body: ${JSON.stringify(body)?.slice(0, 2000)}`,
    );
  }
}

/** The body as JSON, or as the text when it is not JSON. */
export function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The `name=value` pair of a Set-Cookie header, ready to send back as a Cookie header. */
export function cookieFrom(headers: Headers, name: string): string | undefined {
  const line = headers.getSetCookie().find((cookie) => cookie.startsWith(`${name}=`));
  return line?.split(";")[0];
}
