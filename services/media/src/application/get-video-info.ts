import { requireUserId } from "@study/platform/ids";
import type { VideoInfo, VideoSource } from "./ports/video-source.port";

/** Metadata of a video URL for the video import endpoint (the video source checks the URL against the SSRF policy). */
export class GetVideoInfo {
  constructor(private readonly videos: VideoSource) {}

  execute(userId: string, url: string): Promise<VideoInfo> {
    requireUserId(userId);
    return this.videos.getInfo(url);
  }
}
