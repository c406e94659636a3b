import { createHash, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local S3-protocol server on loopback, path-style (`http://127.0.0.1:PORT/<bucket>/<key>`), objects in
 * memory. It speaks the part of the S3 REST API that the AWS SDK v3 and `@aws-sdk/lib-storage` use to store,
 * read and delete objects: PutObject, CreateMultipartUpload, UploadPart, CompleteMultipartUpload,
 * AbortMultipartUpload, GetObject (also with a single `Range`), HeadObject, DeleteObject (and CreateBucket).
 *
 * Signatures are not verified, but every request must carry SigV4 credentials (Authorization header or
 * pre-signed query) naming the configured access key, so a client without or with other credentials fails
 * as against S3. Streaming (`aws-chunked`) bodies are decoded.
 */

export type S3Operation =
  | "PutObject"
  | "CreateMultipartUpload"
  | "UploadPart"
  | "CompleteMultipartUpload"
  | "AbortMultipartUpload"
  | "GetObject"
  | "HeadObject"
  | "DeleteObject"
  | "CreateBucket"
  | "Unsupported";

export interface S3ServerOptions {
  accessKeyId?: string;
  secretAccessKey?: string;
  region?: string;
  /** Buckets that exist from the start (more can be made with CreateBucket). */
  buckets?: string[];
}

export interface StoredS3Object {
  bucket: string;
  key: string;
  body: Buffer;
  contentType: string;
  etag: string;
  lastModified: Date;
}

export interface S3RequestRecord {
  operation: S3Operation;
  method: string;
  bucket: string;
  key: string;
  status: number;
}

export interface PendingMultipartUpload {
  bucket: string;
  key: string;
  uploadId: string;
  partNumbers: number[];
}

export interface LocalS3Server {
  /** `http://127.0.0.1:<port>`: use with `forcePathStyle: true`. */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Every request answered, in order. */
  requests: S3RequestRecord[];
  object(bucket: string, key: string): StoredS3Object | undefined;
  objectKeys(bucket: string): string[];
  /** Multipart uploads created and neither completed nor aborted. */
  pendingMultipartUploads(): PendingMultipartUpload[];
  close(): Promise<void>;
}

interface MultipartUpload {
  bucket: string;
  key: string;
  contentType: string;
  parts: Map<number, { body: Buffer; etag: string }>;
}

class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const md5 = (data: Buffer) => createHash("md5").update(data).digest();

const xmlEscape = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");

const xmlUnescape = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

function xml(root: string, fields: Record<string, string>): string {
  const body = Object.entries(fields)
    .map(([name, value]) => `<${name}>${xmlEscape(value)}</${name}>`)
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root} xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${body}</${root}>`;
}

/** Decodes an `aws-chunked` body: `<hex size>[;chunk-signature=…]\r\n<data>\r\n` … `0\r\n<trailers>\r\n`. */
function decodeAwsChunked(raw: Buffer): Buffer {
  const chunks: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = raw.indexOf("\r\n", offset);
    if (lineEnd < 0) throw new S3Error(400, "IncompleteBody", "aws-chunked body ends inside a chunk header");
    const size = Number.parseInt(raw.subarray(offset, lineEnd).toString("latin1").split(";")[0], 16);
    if (!Number.isFinite(size)) throw new S3Error(400, "InvalidRequest", "malformed aws-chunked chunk size");
    if (size === 0) return Buffer.concat(chunks);
    chunks.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}

/** The single byte range of a `Range: bytes=…` header (first-last, first- or -suffix), as S3 reads it. */
function byteRangeOf(header: string | undefined, size: number): { start: number; end: number } | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header ?? "");
  if (!match || (match[1] === "" && match[2] === "")) return null;
  const start = match[1] === "" ? Math.max(0, size - Number(match[2])) : Number(match[1]);
  const end = match[1] === "" || match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start > end) throw new S3Error(416, "InvalidRange", "The requested range is not satisfiable");
  return { start, end };
}

function accessKeyOf(request: IncomingMessage, query: URLSearchParams): string | undefined {
  const authorization = request.headers.authorization;
  const credential = authorization ? /Credential=([^/,\s]+)\//.exec(authorization)?.[1] : query.get("X-Amz-Credential")?.split("/")[0];
  return credential;
}

function operationOf(method: string, key: string, query: URLSearchParams): S3Operation {
  if (!key) return method === "PUT" ? "CreateBucket" : "Unsupported";
  switch (method) {
    case "PUT":
      if (query.has("partNumber") && query.has("uploadId")) return "UploadPart";
      return query.size === 0 || [...query.keys()].every((name) => name.startsWith("X-Amz-") || name === "x-id") ? "PutObject" : "Unsupported";
    case "POST":
      if (query.has("uploads")) return "CreateMultipartUpload";
      if (query.has("uploadId")) return "CompleteMultipartUpload";
      return "Unsupported";
    case "DELETE":
      return query.has("uploadId") ? "AbortMultipartUpload" : "DeleteObject";
    case "GET":
      return "GetObject";
    case "HEAD":
      return "HeadObject";
    default:
      return "Unsupported";
  }
}

export async function startS3Server(options: S3ServerOptions = {}): Promise<LocalS3Server> {
  const accessKeyId = options.accessKeyId ?? "TESTACCESSKEY";
  const secretAccessKey = options.secretAccessKey ?? "test-secret-access-key";
  const region = options.region ?? "us-east-1";
  const buckets = new Map<string, Map<string, StoredS3Object>>((options.buckets ?? []).map((name) => [name, new Map()]));
  const uploads = new Map<string, MultipartUpload>();
  const requests: S3RequestRecord[] = [];

  function bucketObjects(bucket: string): Map<string, StoredS3Object> {
    const objects = buckets.get(bucket);
    if (!objects) throw new S3Error(404, "NoSuchBucket", "The specified bucket does not exist");
    return objects;
  }

  function uploadOf(bucket: string, key: string, uploadId: string): MultipartUpload {
    const upload = uploads.get(uploadId);
    if (!upload || upload.bucket !== bucket || upload.key !== key) {
      throw new S3Error(404, "NoSuchUpload", "The specified multipart upload does not exist");
    }
    return upload;
  }

  function objectHeaders(object: StoredS3Object): Record<string, string | number> {
    return {
      "content-type": object.contentType,
      "content-length": object.body.length,
      etag: object.etag,
      "last-modified": object.lastModified.toUTCString(),
      "accept-ranges": "bytes",
    };
  }

  function handle(
    operation: S3Operation,
    request: IncomingMessage,
    response: ServerResponse,
    bucket: string,
    key: string,
    query: URLSearchParams,
    body: Buffer,
  ): number {
    const contentType = request.headers["content-type"] ?? "binary/octet-stream";
    switch (operation) {
      case "CreateBucket": {
        if (!buckets.has(bucket)) buckets.set(bucket, new Map());
        response.writeHead(200, { location: `/${bucket}` }).end();
        return 200;
      }
      case "PutObject": {
        const etag = `"${md5(body).toString("hex")}"`;
        bucketObjects(bucket).set(key, { bucket, key, body, contentType, etag, lastModified: new Date() });
        response.writeHead(200, { etag }).end();
        return 200;
      }
      case "CreateMultipartUpload": {
        bucketObjects(bucket);
        const uploadId = randomUUID();
        uploads.set(uploadId, { bucket, key, contentType, parts: new Map() });
        const answer = xml("InitiateMultipartUploadResult", { Bucket: bucket, Key: key, UploadId: uploadId });
        response.writeHead(200, { "content-type": "application/xml" }).end(answer);
        return 200;
      }
      case "UploadPart": {
        const upload = uploadOf(bucket, key, query.get("uploadId") ?? "");
        const partNumber = Number(query.get("partNumber"));
        if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10_000) {
          throw new S3Error(400, "InvalidArgument", "Part number must be an integer between 1 and 10000");
        }
        const etag = `"${md5(body).toString("hex")}"`;
        upload.parts.set(partNumber, { body, etag });
        response.writeHead(200, { etag }).end();
        return 200;
      }
      case "CompleteMultipartUpload": {
        const uploadId = query.get("uploadId") ?? "";
        const upload = uploadOf(bucket, key, uploadId);
        const listed = [...body.toString("utf8").matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map((match) => ({
          partNumber: Number(/<PartNumber>(\d+)<\/PartNumber>/.exec(match[1])?.[1]),
          etag: xmlUnescape(/<ETag>([\s\S]*?)<\/ETag>/.exec(match[1])?.[1] ?? ""),
        }));
        if (listed.length === 0) throw new S3Error(400, "MalformedXML", "The XML you provided was not well-formed");
        const parts = listed.map(({ partNumber, etag }, index) => {
          const part = upload.parts.get(partNumber);
          if (!part || part.etag.replace(/"/g, "") !== etag.replace(/"/g, "")) {
            throw new S3Error(400, "InvalidPart", `Part ${partNumber} was not uploaded or its ETag does not match`);
          }
          if (index > 0 && partNumber <= listed[index - 1].partNumber) {
            throw new S3Error(400, "InvalidPartOrder", "The list of parts was not in ascending order");
          }
          return part;
        });
        const etag = `"${md5(Buffer.concat(parts.map((part) => md5(part.body)))).toString("hex")}-${parts.length}"`;
        const objectBody = Buffer.concat(parts.map((part) => part.body));
        bucketObjects(bucket).set(key, { bucket, key, body: objectBody, contentType: upload.contentType, etag, lastModified: new Date() });
        uploads.delete(uploadId);
        const location = `http://${request.headers.host}/${bucket}/${key}`;
        const answer = xml("CompleteMultipartUploadResult", { Location: location, Bucket: bucket, Key: key, ETag: etag });
        response.writeHead(200, { "content-type": "application/xml" }).end(answer);
        return 200;
      }
      case "AbortMultipartUpload": {
        const uploadId = query.get("uploadId") ?? "";
        uploadOf(bucket, key, uploadId);
        uploads.delete(uploadId);
        response.writeHead(204).end();
        return 204;
      }
      case "GetObject":
      case "HeadObject": {
        const object = bucketObjects(bucket).get(key);
        if (!object) throw new S3Error(404, "NoSuchKey", "The specified key does not exist.");
        const range = operation === "GetObject" ? byteRangeOf(request.headers.range, object.body.length) : null;
        if (range) {
          const part = object.body.subarray(range.start, range.end + 1);
          const contentRange = `bytes ${range.start}-${range.end}/${object.body.length}`;
          response.writeHead(206, { ...objectHeaders(object), "content-length": part.length, "content-range": contentRange }).end(part);
          return 206;
        }
        response.writeHead(200, objectHeaders(object));
        response.end(operation === "GetObject" ? object.body : undefined);
        return 200;
      }
      case "DeleteObject": {
        bucketObjects(bucket).delete(key);
        response.writeHead(204).end();
        return 204;
      }
      case "Unsupported":
        throw new S3Error(501, "NotImplemented", `${request.method} ${request.url} is not implemented by the local S3 server`);
    }
  }

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://localhost");
    const [bucketSegment = "", ...keySegments] = url.pathname.slice(1).split("/");
    const bucket = decodeURIComponent(bucketSegment);
    const key = keySegments.map(decodeURIComponent).join("/");
    const method = request.method ?? "GET";
    const operation = operationOf(method, key, url.searchParams);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    let status: number;
    try {
      const presentedKey = accessKeyOf(request, url.searchParams);
      if (!presentedKey) throw new S3Error(403, "AccessDenied", "Request carries no AWS Signature Version 4 credentials");
      if (presentedKey !== accessKeyId) {
        throw new S3Error(403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.");
      }
      const raw = Buffer.concat(chunks);
      const streaming =
        /aws-chunked/.test(request.headers["content-encoding"] ?? "") ||
        String(request.headers["x-amz-content-sha256"] ?? "").startsWith("STREAMING-");
      status = handle(operation, request, response, bucket, key, url.searchParams, streaming ? decodeAwsChunked(raw) : raw);
    } catch (error) {
      const s3Error = error instanceof S3Error ? error : new S3Error(500, "InternalError", String(error));
      status = s3Error.status;
      const requestId = randomUUID();
      if (method === "HEAD") {
        response.writeHead(s3Error.status, { "x-amz-request-id": requestId }).end();
      } else {
        const answer = xml("Error", { Code: s3Error.code, Message: s3Error.message, Resource: url.pathname, RequestId: requestId });
        response.writeHead(s3Error.status, { "content-type": "application/xml", "x-amz-request-id": requestId }).end(answer);
      }
    }
    requests.push({ operation, method, bucket, key, status });
  }

  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    region,
    accessKeyId,
    secretAccessKey,
    requests,
    object: (bucket, key) => buckets.get(bucket)?.get(key),
    objectKeys: (bucket) => [...(buckets.get(bucket)?.keys() ?? [])].sort(),
    pendingMultipartUploads: () =>
      [...uploads].map(([uploadId, upload]) => ({
        bucket: upload.bucket,
        key: upload.key,
        uploadId,
        partNumbers: [...upload.parts.keys()].sort((a, b) => a - b),
      })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
