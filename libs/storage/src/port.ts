import type { Readable } from "node:stream";

export interface StoredObject {
  key: string;
  size: number;
  contentType: string;
}

/** Byte offsets within an object, both inclusive (as in an HTTP Range). */
export interface ByteRange {
  start: number;
  end: number;
}

/** Port (a pure entry point, `@study/storage/port`): where uploaded files live (local folder by default, S3-compatible in deployments). */
export interface FileStorage {
  /** Streams `body` to `key`; never buffers the whole object. Rejects (and leaves nothing) if the stream errors. */
  put(key: string, body: Readable, options: { contentType: string; signal?: AbortSignal }): Promise<StoredObject>;
  /** Streams an object back, or only `range` of it; rejects NOT_FOUND-like when missing. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** The object's size in bytes; rejects NOT_FOUND-like when missing. */
  stat(key: string): Promise<{ size: number }>;
  /** Copies an object to a local file (for ffmpeg), returning its path. */
  download(key: string, localPath: string): Promise<void>;
  delete(key: string): Promise<void>;
  /** The URL a client fetches the object from: by default the gateway's owner-scoped `/api/files/<key>`. */
  publicUrl(key: string): string;
}

/** Room on disk for the files of one job (an import's downloaded audio, a document being extracted), removed at its end. */
export interface ScratchSpace {
  /** A new, empty folder whose name starts with `prefix`. */
  createFolder(prefix: string): Promise<ScratchFolder>;
}

export interface ScratchFolder {
  /** Where the folder is, for the adapters that write into it (downloader, video source, audio processor). */
  readonly path: string;
  /** The path of a file named `name` inside the folder. */
  pathOf(name: string): string;
  /** Size in bytes and file name of a file in the folder. */
  describe(path: string): Promise<{ size: number; fileName: string }>;
  /** Removes the folder and everything in it. */
  remove(): Promise<void>;
}
