import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { ByteRange, FileStorage, StoredObject } from "./port";
import { assertValidStorageKey, joinPublicUrl, storageObjectNotFound } from "./storage-key";

export interface S3FileStorageConfig {
  bucket: string;
  region: string;
  /** An S3-compatible endpoint (MinIO, R2, Ceph…); AWS's own when absent. */
  endpoint?: string;
  /** `endpoint/bucket/key` URLs instead of `bucket.endpoint/key`: what most S3-compatible servers need. */
  forcePathStyle?: boolean;
  /** Static credentials; the SDK's default chain (environment, profile, instance role) when absent. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /**
   * Where clients fetch objects: `publicUrl(key)` is `${publicBaseUrl}/${key}` — the gateway's owner-scoped
   * route that streams `get(key)` (the default), or a CDN or public-read bucket URL. (Not pre-signed URLs: the
   * port's `publicUrl` is synchronous and a stored note keeps its URL longer than any signature would live.)
   */
  publicBaseUrl: string;
  /** Multipart part size; S3's minimum (and the default here) is 5 MiB. Objects smaller than one part go in one PutObject. */
  partSizeBytes?: number;
  /** Parts uploaded at once; memory held is about partSizeBytes × queueSize. */
  queueSize?: number;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;

function isNoSuchKey(error: unknown): boolean {
  const candidate = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return candidate?.name === "NoSuchKey" || candidate?.name === "NotFound" || candidate?.$metadata?.httpStatusCode === 404;
}

/**
 * Objects in an S3 bucket (AWS SDK v3). `put` streams through `@aws-sdk/lib-storage`'s Upload: bodies above one
 * part become a multipart upload with a bounded number of parts in memory; when the body stream fails or the
 * signal aborts, Upload aborts the multipart upload (leavePartsOnError stays false) so no parts are left
 * billed and no object appears.
 */
export class S3FileStorage implements FileStorage {
  private readonly client: S3Client;
  private readonly partSize: number;

  constructor(private readonly config: S3FileStorageConfig) {
    this.partSize = Math.max(config.partSizeBytes ?? MIN_PART_SIZE, MIN_PART_SIZE);
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle ?? false,
      credentials: config.credentials,
      // Checksums only where S3 demands them: several S3-compatible servers reject the SDK's default
      // CRC32 trailers on multipart uploads.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  async put(key: string, body: Readable, options: { contentType: string; signal?: AbortSignal }): Promise<StoredObject> {
    assertValidStorageKey(key);
    let size = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        callback(null, chunk);
      },
    });
    // pipeline destroys `counted` with the body's error or the abort reason; Upload, reading `counted`, then
    // fails with that same error and aborts its multipart upload before rejecting.
    // eslint-disable-next-line no-restricted-syntax -- the pipeline's error reaches the caller through Upload (above)
    const feeding = pipeline(body, counted, { signal: options.signal }).catch(() => undefined);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.config.bucket, Key: key, Body: counted, ContentType: options.contentType },
      partSize: this.partSize,
      queueSize: this.config.queueSize ?? 4,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      // Upload stopped reading (e.g. S3 refused a part): release the caller's stream too.
      counted.destroy();
      throw error;
    } finally {
      await feeding;
    }
    return { key, size, contentType: options.contentType };
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    assertValidStorageKey(key);
    try {
      const { Body } = await this.client.send(
        new GetObjectCommand({ Bucket: this.config.bucket, Key: key, Range: range && `bytes=${range.start}-${range.end}` }),
      );
      if (!(Body instanceof Readable)) throw new Error(`S3 returned no readable body for ${key}`);
      return Body;
    } catch (error) {
      throw isNoSuchKey(error) ? storageObjectNotFound(key) : error;
    }
  }

  async stat(key: string): Promise<{ size: number }> {
    assertValidStorageKey(key);
    try {
      const { ContentLength } = await this.client.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key: key }));
      if (ContentLength === undefined) throw new Error(`S3 returned no size for ${key}`);
      return { size: ContentLength };
    } catch (error) {
      throw isNoSuchKey(error) ? storageObjectNotFound(key) : error;
    }
  }

  async download(key: string, localPath: string): Promise<void> {
    const body = await this.get(key);
    try {
      await pipeline(body, createWriteStream(localPath));
    } catch (error) {
      await rm(localPath, { force: true });
      throw error;
    }
  }

  /** Deleting a missing key succeeds, as S3 itself answers. */
  async delete(key: string): Promise<void> {
    assertValidStorageKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: key }));
  }

  publicUrl(key: string): string {
    return joinPublicUrl(this.config.publicBaseUrl, key);
  }

  /** Closes the SDK's pooled connections. */
  destroy(): void {
    this.client.destroy();
  }
}
