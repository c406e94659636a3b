import { StudyApiError } from "./errors.js";

export interface UploadProgress {
  /** Bytes of the request sent so far. */
  loaded: number;
  /** The request's size in bytes. */
  total: number;
}

export interface UploadOptions {
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
}

interface UploadRequest extends UploadOptions {
  headers: Record<string, string>;
  fetch: typeof globalThis.fetch;
}

/** How much of an upload is read at a time (Node, Deno): progress moves in steps of this size. */
const UPLOAD_SLICE_BYTES = 64 * 1024;

const abortError = () => new DOMException("The upload was cancelled.", "AbortError");

/** The data of a successful answer (trusted to be the documented one, as openapi-fetch trusts answers). */
function unwrap(status: number, body: unknown): unknown {
  if (status < 200 || status >= 300) throw StudyApiError.fromBody(status, body);
  if (typeof body === "object" && body !== null && (body as { success?: unknown }).success === true && "data" in body) {
    return body.data;
  }
  return body;
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * Browsers report upload progress only through XMLHttpRequest (fetch cannot stream a request body over HTTP/1.1),
 * so in a page the form goes that way; elsewhere (Node, Deno) fetch streams the encoded form and counts the bytes
 * as they are read from it.
 */
export function uploadForm<T>(url: string, form: FormData, request: UploadRequest): Promise<T> {
  return typeof XMLHttpRequest === "function" ? uploadWithXhr<T>(url, form, request) : uploadWithFetch<T>(url, form, request);
}

function uploadWithXhr<T>(url: string, form: FormData, { headers, onProgress, signal }: UploadRequest): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError());
      return;
    }
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.withCredentials = true;
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.onprogress = (event) => onProgress?.({ loaded: event.loaded, total: event.lengthComputable ? event.total : event.loaded });
    xhr.onload = () => {
      try {
        resolve(unwrap(xhr.status, parseJson(xhr.responseText)) as T);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    xhr.onerror = () => reject(StudyApiError.network(new Error("upload failed")));
    xhr.onabort = () => reject(abortError());
    signal?.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}

async function uploadWithFetch<T>(url: string, form: FormData, { headers, onProgress, signal, fetch }: UploadRequest): Promise<T> {
  // Encoding the form once gives its exact size (Content-Length, so servers see a plain upload) and its boundary.
  const encoded = new Response(form);
  const contentType = encoded.headers.get("content-type") ?? "multipart/form-data";
  const bytes = await encoded.blob();
  // Pulled a slice at a time as fetch sends: what has been read is (within a slice) what has gone out.
  let loaded = 0;
  const counted = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (loaded >= bytes.size) {
        controller.close();
        return;
      }
      const slice = new Uint8Array(await bytes.slice(loaded, loaded + UPLOAD_SLICE_BYTES).arrayBuffer());
      loaded += slice.byteLength;
      controller.enqueue(slice);
      onProgress?.({ loaded, total: bytes.size });
    },
  });
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { ...headers, Accept: "application/json", "Content-Type": contentType, "Content-Length": String(bytes.size) },
      body: counted,
      credentials: "include",
      signal,
      duplex: "half",
    } as RequestInit);
  } catch (error) {
    if (signal?.aborted) throw abortError();
    throw StudyApiError.network(error);
  }
  return unwrap(response.status, parseJson(await response.text())) as T;
}
