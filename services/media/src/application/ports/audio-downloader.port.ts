export interface DownloadedFile {
  path: string;
  size: number;
  /** From the response (Content-Type), lower-cased without parameters. */
  contentType: string;
  /** From Content-Disposition or the URL's last path segment. */
  fileName: string;
}

/**
 * Port: fetches a remote file over HTTP(S) to a local path, refusing loopback, private, link-local and
 * metadata addresses (after DNS resolution and on every redirect) unless allow-listed; size- and time-limited.
 */
export interface AudioDownloader {
  download(url: string, destinationPath: string, options: { maxBytes: number; timeoutMs: number; signal?: AbortSignal }): Promise<DownloadedFile>;
}
