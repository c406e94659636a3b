import { execFile } from "node:child_process";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

interface OpenApiResponse {
  content?: Record<string, { schema?: unknown }>;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses?: Record<string, OpenApiResponse> }>>;
  components?: { schemas?: Record<string, unknown> };
}

interface Operation {
  method: string;
  path: string;
  /** `{name}` as one segment. */
  pattern: RegExp;
  /** `{name}` as one or more segments, for wildcard parameters (Express `*key`), tried after every exact match. */
  widePattern: RegExp;
  /** Path parameters in the template: fewer is more specific (`/api/notes/upload/audio` before `/api/notes/{id}`). */
  parameters: number;
  responses: Record<string, OpenApiResponse>;
}

const DOCUMENT_ID = "https://gateway.test/openapi.json";
const pointer = (...segments: string[]) => segments.map((s) => s.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The gateway's OpenAPI document as a contract for its answers: a response whose status the operation does
 * not declare, or whose JSON body does not match the declared schema, is a drift between document and code.
 */
export class ResponseContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  private readonly operations: Operation[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(document: OpenApiDocument) {
    addFormats(this.ajv);
    // The whole document under one id: every `#/components/schemas/…` reference resolves inside it.
    this.ajv.addSchema({ ...document, $id: DOCUMENT_ID });
    this.operations = Object.entries(document.paths)
      .flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => {
          const segments = path.split(/\{\w+\}/).map(escapeRegExp);
          const template = (parameter: string) => new RegExp(`^${segments.join(parameter)}$`);
          return {
            method: method.toUpperCase(),
            path,
            pattern: template("[^/]+"),
            widePattern: template(".+"),
            parameters: segments.length - 1,
            responses: operation.responses ?? {},
          };
        }),
      )
      .sort((a, b) => a.parameters - b.parameters || b.path.length - a.path.length);
  }

  /** Every problem of one response, or none. */
  problems(method: string, url: string, status: number, contentType: string | null, body: unknown): string[] {
    const path = url.split("?")[0];
    const candidates = this.operations.filter((candidate) => candidate.method === method.toUpperCase());
    const operation =
      candidates.find((candidate) => candidate.pattern.test(path)) ?? candidates.find((candidate) => candidate.widePattern.test(path));
    const isJson = /^application\/json\b/.test(contentType ?? "");
    if (!operation) {
      // Unknown routes, preflights: only an error must still be the envelope.
      return status >= 400 && isJson ? this.check(pointer("components", "schemas", "Error"), body) : [];
    }
    const declared = operation.responses[String(status)];
    if (!declared) {
      if (status < 400) return [`${status} is not a declared response of ${operation.method} ${operation.path}`];
      // Failures every route can meet (a service down, a limit of the HTTP layer) are not listed everywhere, but
      // still answer in the envelope.
      return isJson ? this.check(pointer("components", "schemas", "Error"), body) : [`${status} answered without the error envelope`];
    }
    const media = Object.keys(declared.content ?? {});
    if (!isJson || !media.includes("application/json")) return [];
    return this.check(
      pointer("paths", operation.path, operation.method.toLowerCase(), "responses", String(status), "content", "application/json", "schema"),
      body,
    );
  }

  private check(at: string, body: unknown): string[] {
    let validate = this.validators.get(at);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#/${at}` });
      this.validators.set(at, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map((error) => `${error.instancePath || "(body)"} ${error.message ?? "is invalid"} (${error.schemaPath})`);
  }
}

const contracts = new Map<string, Promise<ResponseContract>>();

/** The contract of the gateway at `baseUrl`, read once (a failed read is retried on the next response). */
export function responseContract(baseUrl: string): Promise<ResponseContract> {
  let contract = contracts.get(baseUrl);
  if (!contract) {
    contract = fetch(`${baseUrl}/openapi.json`).then(async (response) => {
      if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
      return new ResponseContract((await response.json()) as OpenApiDocument);
    });
    contract.catch(() => contracts.delete(baseUrl));
    contracts.set(baseUrl, contract);
  }
  return contract;
}

/**
 * Validates a whole OpenAPI document (the OpenAPI 3.x meta-schemas, and that every `$ref` resolves) with a
 * maintained validator. The validator is an ES module that reads its schemas through `import.meta`, which
 * jest's CommonJS transform cannot run: it runs in a child Node process.
 */
export function validateOpenApiDocument(document: unknown): Promise<{ valid: boolean; errors: unknown }> {
  const script = `
    import { Validator } from "@seriousme/openapi-schema-validator";
    let input = "";
    for await (const chunk of process.stdin) input += chunk;
    const result = await new Validator().validate(JSON.parse(input));
    process.stdout.write(JSON.stringify({ valid: result.valid, errors: result.errors ?? null }));
  `;
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      ["--input-type=module", "--eval", script],
      { cwd: __dirname, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`the OpenAPI validator failed: ${stderr || error.message}`));
        else resolve(JSON.parse(stdout) as { valid: boolean; errors: unknown });
      },
    );
    child.stdin?.end(JSON.stringify(document));
  });
}
