/**
 * Where services keep uploaded files: the FileStorage port and its two adapters, a local folder (the default) and
 * an S3-compatible bucket (deployments). Media keeps audio and attachments here; documents will keep documents.
 */
export * from "./port";
export * from "./local-file-storage";
export * from "./s3-file-storage";
export * from "./upload-server";
export * from "./file-download";
export * from "./create-file-storage";
export * from "./local-scratch-space";
export { assertValidStorageKey, storageObjectNotFound } from "./storage-key";
