import { AppError } from "@study/platform/errors";

const MAX_KEY_LENGTH = 1024;

/**
 * Storage keys are relative, slash-separated paths (`users/42/notes/7/lecture.mp3`). Both storages refuse
 * anything that could step outside their root or mean different things on disk and in S3: a leading or
 * doubled slash, `.` or `..` segments, backslashes and control characters.
 */
export function assertValidStorageKey(key: string): void {
  const problem =
    key.length === 0
      ? "is empty"
      : key.length > MAX_KEY_LENGTH
        ? `is longer than ${MAX_KEY_LENGTH} characters`
        : key.includes("\\")
          ? "contains a backslash"
          : // eslint-disable-next-line no-control-regex -- control characters are what this refuses
            /[\u0000-\u001f\u007f]/.test(key)
            ? "contains a control character"
            : key.split("/").some((segment) => segment === "" || segment === "." || segment === "..")
              ? "must be a relative path without empty, '.' or '..' segments"
              : null;
  if (problem) throw new AppError("validation", "INVALID_STORAGE_KEY", `Storage key "${key.slice(0, 100)}" ${problem}`);
}

/** `${base}/${key}` with each key segment URL-encoded (a key may contain spaces or `#`). */
export function joinPublicUrl(baseUrl: string, key: string): string {
  assertValidStorageKey(key);
  return `${baseUrl.replace(/\/+$/, "")}/${key.split("/").map(encodeURIComponent).join("/")}`;
}

export function storageObjectNotFound(key: string): AppError {
  return AppError.notFound(`Stored file "${key}"`);
}
