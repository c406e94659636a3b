/**
 * Port: whether the service may download from a URL (the SSRF policy: no loopback, private, link-local or
 * metadata addresses unless allow-listed). `check` resolves the host and throws a validation AppError
 * (URL_NOT_ALLOWED, INVALID_URL) when the URL may not be fetched: one generic URL_NOT_ALLOWED for a host that
 * does not resolve and for one that resolves to an address the service may not reach, so that the answer tells
 * nothing of the internal network (the reason is logged).
 */
export interface DownloadUrlPolicy {
  check(url: string): Promise<unknown>;
}
