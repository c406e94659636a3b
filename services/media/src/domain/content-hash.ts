/** A file's content hash as media keeps it: SHA-256, 64 lower-case hex digits. */
export const isContentHash = (value: string): boolean => /^[0-9a-f]{64}$/.test(value);
