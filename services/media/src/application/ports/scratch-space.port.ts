/** Room on disk for the files of one import (downloaded source, converted speech audio), removed at its end. */
export interface ScratchSpace {
  /** A new, empty folder whose name starts with `prefix`. */
  createFolder(prefix: string): Promise<ScratchFolder>;
}

export interface ScratchFolder {
  /** Where the folder is, for the adapters that write into it (downloader, video source, audio processor). */
  readonly path: string;
  /** The path of a file named `name` inside the folder. */
  pathOf(name: string): string;
  /** Size in bytes and file name of a file in the folder. */
  describe(path: string): Promise<{ size: number; fileName: string }>;
  /** Removes the folder and everything in it. */
  remove(): Promise<void>;
}
