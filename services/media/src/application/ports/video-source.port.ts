export interface VideoInfo {
  title: string;
  /** Seconds. */
  duration: number;
  description: string;
  uploader: string;
}

/** Port: a video platform (yt-dlp in production): metadata and the audio track of a video URL. */
export interface VideoSource {
  getInfo(url: string, signal?: AbortSignal): Promise<VideoInfo>;
  /** Downloads the audio track into `directory`; returns the file's path. */
  downloadAudio(url: string, directory: string, signal?: AbortSignal): Promise<string>;
}
