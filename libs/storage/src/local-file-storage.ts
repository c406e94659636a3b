import { randomUUID } from "node:crypto";
import { copyFile, mkdir, open, rename, rm, rmdir, stat, type FileHandle } from "node:fs/promises";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ByteRange, FileStorage, StoredObject } from "./port";
import { assertValidStorageKey, joinPublicUrl, storageObjectNotFound } from "./storage-key";

export interface LocalFileStorageConfig {
  /** The folder holding every object; a key is a path below it. */
  rootDirectory: string;
  /** Where clients fetch objects: `publicUrl(key)` is `${publicBaseUrl}/${key}`. */
  publicBaseUrl: string;
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === "ENOENT";

/**
 * Objects as files under a root folder. A put streams into a hidden temporary file beside the target and
 * renames it into place, so readers never see half a file and a failed or aborted stream leaves nothing
 * behind (not even the folders it created). Deleting a missing key is not an error (as in S3).
 */
export class LocalFileStorage implements FileStorage {
  private readonly root: string;

  constructor(private readonly config: LocalFileStorageConfig) {
    this.root = resolve(config.rootDirectory);
  }

  async put(key: string, body: Readable, options: { contentType: string; signal?: AbortSignal }): Promise<StoredObject> {
    const path = this.pathOf(key);
    const folder = dirname(path);
    const temporaryPath = join(folder, `.${randomUUID()}.partial`);
    const { file, firstCreatedFolder } = await this.createFile(temporaryPath);
    try {
      await pipeline(body, file.createWriteStream(), { signal: options.signal });
      const { size } = await stat(temporaryPath);
      await rename(temporaryPath, path);
      return { key, size, contentType: options.contentType };
    } catch (error) {
      await rm(temporaryPath, { force: true });
      if (firstCreatedFolder) await this.removeEmptyFolders(folder, firstCreatedFolder);
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const path = this.pathOf(key);
    try {
      // Opening first turns a missing file into NOT_FOUND here rather than an error event on the stream.
      const handle = await open(path, "r");
      return handle.createReadStream(range && { start: range.start, end: range.end });
    } catch (error) {
      throw isMissing(error) ? storageObjectNotFound(key) : error;
    }
  }

  async stat(key: string): Promise<{ size: number }> {
    const path = this.pathOf(key);
    try {
      const info = await stat(path);
      if (!info.isFile()) throw storageObjectNotFound(key);
      return { size: info.size };
    } catch (error) {
      throw isMissing(error) ? storageObjectNotFound(key) : error;
    }
  }

  async download(key: string, localPath: string): Promise<void> {
    const path = this.pathOf(key);
    try {
      await copyFile(path, localPath);
    } catch (error) {
      if (isMissing(error) && !(await this.exists(path))) throw storageObjectNotFound(key);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    await rm(path, { force: true });
    await this.removeEmptyFolders(dirname(path), this.root);
  }

  publicUrl(key: string): string {
    return joinPublicUrl(this.config.publicBaseUrl, key);
  }

  private pathOf(key: string): string {
    assertValidStorageKey(key);
    const path = resolve(this.root, ...key.split("/"));
    // The key rules already exclude `..`; this guards the invariant itself.
    if (!path.startsWith(this.root + sep)) throw new Error(`storage key ${key} escapes the storage root`);
    return path;
  }

  /**
   * Creates the file and its folders. A concurrent delete may remove a folder that just became empty between
   * the mkdir and the open; once the file exists the folder is no longer empty, so one retry settles it.
   */
  private async createFile(path: string): Promise<{ file: FileHandle; firstCreatedFolder: string | undefined }> {
    let firstCreatedFolder: string | undefined;
    for (let attempt = 1; ; attempt++) {
      firstCreatedFolder ??= await mkdir(dirname(path), { recursive: true });
      try {
        return { file: await open(path, "wx"), firstCreatedFolder };
      } catch (error) {
        if (!isMissing(error) || attempt === 3) throw error;
      }
    }
  }

  private async exists(path: string): Promise<boolean> {
    return stat(path).then(
      () => true,
      () => false,
    );
  }

  /** Removes `folder` and its parents while they are empty, never going above `highest` nor the root. */
  private async removeEmptyFolders(folder: string, highest: string): Promise<void> {
    let current = folder;
    while (current !== this.root && current.startsWith(this.root + sep) && !relative(highest, current).startsWith("..")) {
      try {
        await rmdir(current);
      } catch {
        return; // not empty (or already gone): its parents are not empty either
      }
      current = dirname(current);
    }
  }
}
