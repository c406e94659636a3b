import type { Readable } from "node:stream";

export interface StoredObject {
  key: string;
  size: number;
  contentType: string;
}

/** Port: where uploaded audio and attachments live (local folder by default, S3-compatible in deployments). */
export interface FileStorage {
  /** Streams `body` to `key`; never buffers the whole object. Rejects (and leaves nothing) if the stream errors. */
  put(key: string, body: Readable, options: { contentType: string; signal?: AbortSignal }): Promise<StoredObject>;
  /** Streams an object back; rejects NOT_FOUND-like when missing. */
  get(key: string): Promise<Readable>;
  /** Copies an object to a local file (for ffmpeg), returning its path. */
  download(key: string, localPath: string): Promise<void>;
  delete(key: string): Promise<void>;
  /** A URL under which a client can fetch the object (served by the gateway or pre-signed). */
  publicUrl(key: string): string;
}
