/**
 * Port: where uploaded audio and attachments live (local folder by default, S3-compatible in deployments). The
 * port and its adapters are shared with other services that store files (libs/storage).
 */
export type { ByteRange, FileStorage, StoredObject } from "@study/storage/port";
