/**
 * Port: whether the service may download from a URL (the SSRF policy: no loopback, private, link-local or
 * metadata addresses unless allow-listed). `check` resolves the host and throws a validation AppError
 * (URL_NOT_ALLOWED, INVALID_URL, HOST_NOT_FOUND) when the URL may not be fetched.
 */
export interface DownloadUrlPolicy {
  check(url: string): Promise<unknown>;
}
