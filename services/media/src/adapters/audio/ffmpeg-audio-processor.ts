import { mkdir, readFile, rm } from "node:fs/promises";
import { basename, isAbsolute, join, resolve } from "node:path";
import type { AudioProbe, AudioProcessor } from "../../application/ports/audio-processor.port";
import { runTool } from "@study/platform/run-tool";

export interface FfmpegAudioProcessorOptions {
  ffmpegPath?: string;
  ffprobePath?: string;
}

/** The parts of `ffprobe -print_format json -show_format -show_streams` this adapter reads. */
interface FfprobeOutput {
  format?: { format_name?: string; duration?: string };
  streams?: { codec_type?: string; duration?: string }[];
}

/** Written into the segment folder; lists each piece with its start and end time. */
const SEGMENT_LIST_FILE = "pieces.csv";
/**
 * The segment muxer can only cut between packets. Packets of 256 samples last at most 32 ms (at 8 kHz and
 * above), so cutting every `maxSeconds - 40 ms` keeps every piece within `maxSeconds`.
 */
const SAMPLES_PER_PACKET = 256;
const CUT_MARGIN_SECONDS = 0.04;

/**
 * Inputs are named with the `file:` protocol and only that protocol is allowed: a path can then never be
 * taken for a URL or an option, and a crafted upload (an HLS playlist posing as audio) cannot make ffmpeg
 * fetch anything over the network.
 */
function inputArgs(path: string): string[] {
  return ["-protocol_whitelist", "file", "-i", `file:${resolve(path)}`];
}

/**
 * Plain 44-byte WAV headers: without `bitexact` ffmpeg adds a LIST/INFO chunk, which pocketsphinx (it skips a
 * fixed-size header) would decode as a burst of noise.
 */
const CANONICAL_WAV = ["-fflags", "+bitexact", "-flags:a", "+bitexact"];

const QUIET = ["-nostdin", "-hide_banner", "-loglevel", "error", "-y"];

/** AudioProcessor on Debian's ffmpeg and ffprobe, run as child processes (no shell). */
export class FfmpegAudioProcessor implements AudioProcessor {
  private readonly ffmpeg: string;
  private readonly ffprobe: string;

  constructor(options: FfmpegAudioProcessorOptions = {}) {
    this.ffmpeg = options.ffmpegPath ?? "ffmpeg";
    this.ffprobe = options.ffprobePath ?? "ffprobe";
  }

  async probe(inputPath: string, signal?: AbortSignal): Promise<AudioProbe> {
    const json = await runTool(this.ffprobe, ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", ...inputArgs(inputPath)], {
      signal,
    });
    const output = JSON.parse(json) as FfprobeOutput;
    const streams = output.streams ?? [];
    // Some containers (raw streams, some WebM) report the duration only per stream.
    const formatDuration = Number(output.format?.duration);
    const streamDurations = streams.map((stream) => Number(stream.duration)).filter((seconds) => Number.isFinite(seconds) && seconds >= 0);
    return {
      durationSeconds: Number.isFinite(formatDuration) && formatDuration >= 0 ? formatDuration : Math.max(0, ...streamDurations),
      format: output.format?.format_name ?? "unknown",
      hasAudio: streams.some((stream) => stream.codec_type === "audio"),
    };
  }

  async toSpeechWav(inputPath: string, outputPath: string, options: { speed: 1 | 2; signal?: AbortSignal }): Promise<void> {
    const args = [
      ...QUIET,
      ...inputArgs(inputPath),
      // The first audio track only; a file without one fails with "Stream map '0:a:0' matches no streams".
      "-map",
      "0:a:0",
      // atempo changes the tempo and keeps the pitch, so the recogniser still hears a normal voice.
      ...(options.speed === 2 ? ["-af", "atempo=2.0"] : []),
      "-ac",
      "1",
      "-ar",
      "16000",
      "-c:a",
      "pcm_s16le",
      ...CANONICAL_WAV,
      "-f",
      "wav",
      `file:${resolve(outputPath)}`,
    ];
    try {
      await runTool(this.ffmpeg, args, { signal: options.signal });
    } catch (error) {
      await rm(outputPath, { force: true });
      throw error;
    }
  }

  async split(
    inputPath: string,
    outputDirectory: string,
    maxSeconds: number,
    signal?: AbortSignal,
  ): Promise<{ path: string; offsetSeconds: number }[]> {
    if (!(maxSeconds >= 1)) throw new RangeError(`split needs pieces of at least 1 second, got ${maxSeconds}`);
    const directory = resolve(outputDirectory);
    await mkdir(directory, { recursive: true });
    const listPath = join(directory, SEGMENT_LIST_FILE);
    await runTool(
      this.ffmpeg,
      [
        ...QUIET,
        ...inputArgs(inputPath),
        "-map",
        "0:a:0",
        "-af",
        `asetnsamples=n=${SAMPLES_PER_PACKET}:p=0`,
        // PCM at the input's own rate and channels: the pieces together hold exactly the input's samples.
        "-c:a",
        "pcm_s16le",
        ...CANONICAL_WAV,
        "-f",
        "segment",
        "-segment_time",
        (maxSeconds - CUT_MARGIN_SECONDS).toFixed(3),
        "-segment_format",
        "wav",
        "-segment_format_options",
        "fflags=+bitexact",
        "-reset_timestamps",
        "1",
        "-segment_list",
        listPath,
        "-segment_list_type",
        "csv",
        // The segment muxer expands printf patterns in the whole name, so a literal % must be doubled.
        join(directory.replace(/%/g, "%%"), "piece-%05d.wav"),
      ],
      { signal },
    );
    // Each line: "<file name>,<start seconds>,<end seconds>"; the start is where the piece really began (the
    // muxer cuts at packet boundaries), which keeps stitched timestamps exact.
    const list = await readFile(listPath, "utf8");
    await rm(listPath, { force: true });
    return list
      .split("\n")
      .filter((line) => line.trim())
      .map((line) => {
        const [, name, start] = /^"?(.*?)"?,([\d.]+),([\d.]+)$/.exec(line.trim()) ?? [];
        if (name === undefined) throw new Error(`Unexpected line in ffmpeg's segment list: ${line}`);
        return { path: isAbsolute(name) ? name : join(directory, basename(name)), offsetSeconds: Number(start) };
      });
  }
}
