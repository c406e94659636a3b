import { createFileStorage as createStorage, type FileStorage } from "@study/storage";

export interface FileStorageSettings {
  MEDIA_STORAGE_DIR: string;
  MEDIA_PUBLIC_BASE_URL: string;
  MEDIA_S3_BUCKET?: string;
  MEDIA_S3_REGION: string;
  MEDIA_S3_ENDPOINT?: string;
  MEDIA_S3_ACCESS_KEY_ID?: string;
  MEDIA_S3_SECRET_ACCESS_KEY?: string;
}

/** An S3-compatible bucket when MEDIA_S3_BUCKET is set, otherwise the local folder MEDIA_STORAGE_DIR. */
export function createFileStorage(config: FileStorageSettings): FileStorage {
  return createStorage({
    storageDir: config.MEDIA_STORAGE_DIR,
    publicBaseUrl: config.MEDIA_PUBLIC_BASE_URL,
    s3: config.MEDIA_S3_BUCKET
      ? {
          bucket: config.MEDIA_S3_BUCKET,
          region: config.MEDIA_S3_REGION,
          endpoint: config.MEDIA_S3_ENDPOINT,
          accessKeyId: config.MEDIA_S3_ACCESS_KEY_ID,
          secretAccessKey: config.MEDIA_S3_SECRET_ACCESS_KEY,
        }
      : undefined,
  });
}
