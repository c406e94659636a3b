import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AppError } from "@study/platform/errors";
import type { AudioDownloader, DownloadedFile } from "../../application/ports/audio-downloader.port";
import { downloadFileName } from "./download-file-name";
import { OutboundUrlPolicy, parseHttpUrl, type OutboundTarget } from "./outbound-url-policy";

export interface SafeHttpDownloaderOptions {
  policy: OutboundUrlPolicy;
  /** Redirects followed before giving up (each one checked again by the policy). Default 5. */
  maxRedirects?: number;
  userAgent?: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

function downloadFailed(message: string, cause?: unknown): AppError {
  return new AppError("validation", "DOWNLOAD_FAILED", message, { details: [{ field: "url", message }], cause });
}

function fileTooLarge(maxBytes: number, size?: number): AppError {
  const limit = `${formatBytes(maxBytes)} limit`;
  const message = size === undefined ? `The file is larger than the ${limit}` : `The file is ${formatBytes(size)}, over the ${limit}`;
  return new AppError("too_large", "FILE_TOO_LARGE", message);
}

/** 157286400 → `150 MB`, 5000 → `4.9 KB`. */
export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${+(bytes / (1024 * 1024)).toFixed(1)} MB` : bytes >= 1024 ? `${+(bytes / 1024).toFixed(1)} KB` : `${bytes} bytes`;
}

/** A lookup that answers with the address the policy checked, whatever the name: no second DNS answer is used. */
function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/** Rejects as soon as `signal` aborts, for steps (DNS) that cannot be cancelled themselves. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the abort reason as given, as signal.throwIfAborted() throws it: callers recognise their own reason
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Downloads a user-supplied URL to a local file without letting the URL reach inside the network: every hop
 * (the URL and each redirect, followed by hand) is checked by the OutboundUrlPolicy and the connection goes
 * to the very address that was checked. The body streams to a temporary file beside the destination through
 * a byte counter that stops at `maxBytes`; the file is renamed into place only when complete, and removed on
 * any failure. `timeoutMs` bounds the whole download, redirects and body included.
 */
export class SafeHttpDownloader implements AudioDownloader {
  private readonly policy: OutboundUrlPolicy;
  private readonly maxRedirects: number;
  private readonly userAgent: string;

  constructor(options: SafeHttpDownloaderOptions) {
    this.policy = options.policy;
    this.maxRedirects = options.maxRedirects ?? 5;
    this.userAgent = options.userAgent ?? "study-media-downloader/1.0";
  }

  async download(
    url: string,
    destinationPath: string,
    options: { maxBytes: number; timeoutMs: number; signal?: AbortSignal },
  ): Promise<DownloadedFile> {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const firstUrl = parseHttpUrl(url);
    // The hop being fetched, so that a network error names the server that failed, not the first one.
    const hop = { url: firstUrl };
    try {
      return await this.fetchToFile(hop, destinationPath, options.maxBytes, signal);
    } catch (error) {
      if (error instanceof AppError) throw error;
      if (options.signal?.aborted) throw options.signal.reason;
      if (timeout.aborted) {
        throw new AppError("timeout", "CONNECTION_TIMEOUT", `Downloading ${shown(firstUrl)} did not finish within ${options.timeoutMs / 1000} s`, {
          cause: error,
        });
      }
      throw describeNetworkError(error, hop.url);
    }
  }

  private async fetchToFile(hop: { url: URL }, destinationPath: string, maxBytes: number, signal: AbortSignal): Promise<DownloadedFile> {
    const firstUrl = hop.url;
    let url = firstUrl;
    for (let redirects = 0; ; redirects++) {
      hop.url = url;
      const target = await untilAborted(this.policy.check(url), signal);
      const response = await this.request(target, signal);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(status) && location) {
        response.destroy();
        if (redirects >= this.maxRedirects) {
          throw new AppError("validation", "TOO_MANY_REDIRECTS", `Gave up after ${this.maxRedirects} redirects starting at ${shown(firstUrl)}`);
        }
        url = parseHttpUrl(resolveLocation(location, url));
        continue;
      }
      if (status < 200 || status >= 300) {
        response.destroy();
        throw downloadFailed(`The server answered ${status}${response.statusMessage ? ` ${response.statusMessage}` : ""} for ${shown(url)}`);
      }
      const declaredLength = Number(response.headers["content-length"]);
      if (Number.isFinite(declaredLength) && declaredLength > maxBytes) {
        response.destroy();
        throw fileTooLarge(maxBytes, declaredLength);
      }
      const size = await this.writeBody(response, destinationPath, maxBytes, signal);
      return {
        path: destinationPath,
        size,
        contentType: (response.headers["content-type"] ?? "application/octet-stream").split(";")[0].trim().toLowerCase(),
        fileName: downloadFileName(response.headers["content-disposition"], [url, firstUrl]),
      };
    }
  }

  private request(target: OutboundTarget, signal: AbortSignal): Promise<IncomingMessage> {
    const { url } = target;
    const client = url.protocol === "https:" ? https : http;
    return new Promise((resolve, reject) => {
      const request = client.request({
        protocol: url.protocol,
        hostname: target.hostname,
        port: target.port,
        path: `${url.pathname}${url.search}`,
        method: "GET",
        headers: { "user-agent": this.userAgent, accept: "*/*", "accept-encoding": "identity" },
        auth: url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined,
        // A fresh connection per request, made to the checked address only.
        agent: false,
        lookup: pinnedLookup(target.address, target.family),
        signal,
      });
      request.once("response", resolve);
      request.once("error", reject);
      request.end();
    });
  }

  private async writeBody(response: IncomingMessage, destinationPath: string, maxBytes: number, signal: AbortSignal): Promise<number> {
    let received = 0;
    const limiter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        callback(received > maxBytes ? fileTooLarge(maxBytes) : null, chunk);
      },
    });
    const temporaryPath = `${destinationPath}.${randomUUID()}.partial`;
    try {
      await pipeline(response, limiter, createWriteStream(temporaryPath, { flags: "wx" }), { signal });
      await rename(temporaryPath, destinationPath);
      return received;
    } catch (error) {
      await rm(temporaryPath, { force: true });
      throw error;
    }
  }
}

/** A URL for messages: without credentials or query (which may hold tokens). */
function shown(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

function resolveLocation(location: string, base: URL): URL {
  try {
    return new URL(location, base);
  } catch {
    throw downloadFailed(`The server at ${shown(base)} redirected to an invalid location`);
  }
}

function describeNetworkError(error: unknown, url: URL): AppError {
  const { code, message } = (error ?? {}) as NodeJS.ErrnoException;
  switch (code) {
    case "ECONNREFUSED":
      return downloadFailed(`Could not connect to ${url.host}: connection refused`, error);
    case "ECONNRESET":
    case "ERR_STREAM_PREMATURE_CLOSE":
      return downloadFailed(`The connection to ${url.host} closed before the download finished`, error);
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return downloadFailed(`${url.host} is unreachable`, error);
    default:
      return downloadFailed(
        `Downloading ${shown(url)} failed: ${code?.startsWith("ERR_TLS") || code?.includes("CERT") ? "TLS certificate problem: " : ""}${message ?? String(error)}`,
        error,
      );
  }
}
