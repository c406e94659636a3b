import { resolve } from "node:path";
import { LocalFileStorage } from "./local-file-storage";
import type { FileStorage } from "./port";
import { S3FileStorage } from "./s3-file-storage";

/** Where a service keeps its files; each service names its own settings (MEDIA_STORAGE_DIR, DOCUMENTS_S3_BUCKET…). */
export interface FileStorageSettings {
  /** The local folder used when no bucket is set. */
  storageDir: string;
  /** Base of the URLs given to clients for stored files. */
  publicBaseUrl: string;
  s3?: {
    bucket: string;
    region: string;
    /** An S3-compatible server (MinIO…): path-style addressing is used then. */
    endpoint?: string;
    accessKeyId?: string;
    secretAccessKey?: string;
  };
}

/** An S3-compatible bucket when one is set, otherwise the local folder. */
export function createFileStorage(settings: FileStorageSettings): FileStorage {
  const { s3 } = settings;
  if (s3) {
    return new S3FileStorage({
      bucket: s3.bucket,
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: Boolean(s3.endpoint),
      credentials: s3.accessKeyId && s3.secretAccessKey ? { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey } : undefined,
      publicBaseUrl: settings.publicBaseUrl,
    });
  }
  return new LocalFileStorage({ rootDirectory: resolve(settings.storageDir), publicBaseUrl: settings.publicBaseUrl });
}
