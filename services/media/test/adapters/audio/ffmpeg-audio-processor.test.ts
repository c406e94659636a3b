import { execFileSync } from "node:child_process";
import { constants } from "node:fs";
import { mkdtemp, open, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { librivoxClip, runFfmpeg } from "@study/testkit";
import { FfmpegAudioProcessor } from "../../../src/adapters/audio/ffmpeg-audio-processor";
import { ExternalToolError } from "@study/platform/run-tool";
import { readWav, zeroCrossingsPerSecond } from "./fixtures";

const processor = new FfmpegAudioProcessor();
let directory: string;
/** 4 s of a 440 Hz tone, stereo, 44.1 kHz FLAC. */
let tone: string;
/** 1 s of video without an audio track. */
let videoOnly: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "audio-processor-"));
  tone = join(directory, "tone.flac");
  videoOnly = join(directory, "video-only.mkv");
  await runFfmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=4", "-ac", "2", "-c:a", "flac", tone]);
  await runFfmpeg(["-f", "lavfi", "-i", "testsrc=size=64x48:rate=5:duration=1", "-c:v", "ffv1", videoOnly]);
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** A named pipe nobody writes to: a tool reading it blocks until killed. */
function fifo(name: string): string {
  const path = join(directory, name);
  execFileSync("mkfifo", [path]);
  return path;
}

/** Opens a FIFO for writing without blocking: succeeds only while some process has it open for reading. */
async function openWriterWhenRead(path: string): Promise<Awaited<ReturnType<typeof open>>> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    try {
      return await open(path, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENXIO") throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  throw new Error(`nobody opened ${path} for reading`);
}

describe("FfmpegAudioProcessor.probe", () => {
  it("reports duration, container and audio track of a recording", async () => {
    const probe = await processor.probe(librivoxClip("0890"));
    expect(probe).toEqual({ durationSeconds: 5.3, format: "wav", hasAudio: true });
  });

  it("reports a video without sound as having no audio", async () => {
    const probe = await processor.probe(videoOnly);
    expect(probe.hasAudio).toBe(false);
    expect(probe.format).toBe("matroska,webm");
    expect(probe.durationSeconds).toBeCloseTo(1, 1);
  });

  it("fails with ffprobe's own explanation for a file that is not media", async () => {
    const zipNamedLikeAudio = join(directory, "lecture.m4a");
    await writeFile(zipNamedLikeAudio, Buffer.concat([Buffer.from("PK\x03\x04"), Buffer.alloc(512, 7)]));
    const failure = processor.probe(zipNamedLikeAudio);
    await expect(failure).rejects.toBeInstanceOf(ExternalToolError);
    await expect(failure).rejects.toThrow(/^ffprobe failed with exit code 1: .*moov atom not found.*Invalid data found when processing input/);
  });

  it("refuses to treat a path as a URL", async () => {
    await expect(processor.probe("http://127.0.0.1:9/audio.mp3")).rejects.toThrow(/No such file or directory/);
  });
});

describe("FfmpegAudioProcessor.toSpeechWav", () => {
  it("writes 16 kHz mono 16-bit PCM with a plain 44-byte header", async () => {
    const output = join(directory, "speech-1x.wav");
    await processor.toSpeechWav(tone, output, { speed: 1 });
    const wav = await readWav(output);
    expect(wav).toMatchObject({ format: 1, channels: 1, sampleRate: 16_000, bitsPerSample: 16, dataOffset: 44 });
    expect(wav.durationSeconds).toBeCloseTo(4, 1);
    expect(zeroCrossingsPerSecond(wav) / 2).toBeCloseTo(440, -1);
  });

  it("at speed 2 halves the duration and keeps the pitch (atempo)", async () => {
    const output = join(directory, "speech-2x.wav");
    await processor.toSpeechWav(tone, output, { speed: 2 });
    const wav = await readWav(output);
    expect(wav).toMatchObject({ channels: 1, sampleRate: 16_000, bitsPerSample: 16 });
    expect(wav.durationSeconds).toBeCloseTo(2, 1);
    // A resampling speed-up would have doubled the tone to 880 Hz.
    expect(zeroCrossingsPerSecond(wav) / 2).toBeCloseTo(440, -1);
  });

  it("fails clearly for a file without an audio track and leaves no output", async () => {
    const output = join(directory, "silent-video.wav");
    await expect(processor.toSpeechWav(videoOnly, output, { speed: 1 })).rejects.toThrow(
      /^ffmpeg failed with exit code 1: .*Stream map '0:a:0' matches no streams/,
    );
    expect(await readdir(directory)).not.toContain("silent-video.wav");
  });

  it("kills ffmpeg when aborted and rejects with an AbortError", async () => {
    const input = fifo("blocked-input.wav");
    const output = join(directory, "never.wav");
    const controller = new AbortController();
    const conversion = processor.toSpeechWav(input, output, { speed: 1, signal: controller.signal });
    const writer = await openWriterWhenRead(input); // ffmpeg is now waiting for data
    controller.abort();
    await expect(conversion).rejects.toMatchObject({ name: "AbortError" });
    // No process has the pipe open for reading any more: ffmpeg is gone.
    await expect(open(input, constants.O_WRONLY | constants.O_NONBLOCK)).rejects.toMatchObject({ code: "ENXIO" });
    await writer.close();
    expect(await readdir(directory)).not.toContain("never.wav");
  });

  it("does not start ffmpeg for an already aborted signal", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(processor.toSpeechWav(tone, join(directory, "x.wav"), { speed: 1, signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
  });

  it("says so when ffmpeg is not installed", async () => {
    const missing = new FfmpegAudioProcessor({ ffmpegPath: "ffmpeg-not-installed-here" });
    await expect(missing.toSpeechWav(tone, join(directory, "y.wav"), { speed: 1 })).rejects.toThrow(
      "ffmpeg-not-installed-here is not installed (not found on PATH)",
    );
  });
});

describe("FfmpegAudioProcessor.split", () => {
  it("cuts consecutive pieces of at most N seconds whose offsets and samples add up to the input", async () => {
    const input = librivoxClip("0870"); // 7.1 s
    const pieces = await processor.split(input, join(directory, "pieces"), 3);
    expect(pieces.map((piece) => piece.path)).toEqual(
      ["piece-00000.wav", "piece-00001.wav", "piece-00002.wav"].map((name) => join(directory, "pieces", name)),
    );
    const wavs = await Promise.all(pieces.map((piece) => readWav(piece.path)));
    expect(pieces[0].offsetSeconds).toBe(0);
    for (const [index, wav] of wavs.entries()) {
      expect(wav).toMatchObject({ sampleRate: 16_000, channels: 1, bitsPerSample: 16, dataOffset: 44 });
      expect(wav.durationSeconds).toBeLessThanOrEqual(3);
      if (index > 0) expect(pieces[index].offsetSeconds).toBeCloseTo(pieces[index - 1].offsetSeconds + wavs[index - 1].durationSeconds, 3);
    }
    // Lossless: the pieces' samples, end to end, are exactly the input's.
    const original = await readWav(input);
    expect(Buffer.concat(wavs.map((wav) => wav.data)).equals(original.data)).toBe(true);
    expect(await readdir(join(directory, "pieces"))).toHaveLength(3); // the segment list is cleaned up
  });

  it("keeps a short input whole", async () => {
    const pieces = await processor.split(librivoxClip("0880"), join(directory, "whole"), 30);
    expect(pieces).toEqual([{ path: join(directory, "whole", "piece-00000.wav"), offsetSeconds: 0 }]);
    expect((await readWav(pieces[0].path)).durationSeconds).toBeCloseTo(2.99, 2);
  });

  it("handles a folder whose name contains a percent sign", async () => {
    const pieces = await processor.split(librivoxClip("0880"), join(directory, "100%done"), 2);
    expect(pieces.map((piece) => piece.path)).toEqual([
      join(directory, "100%done", "piece-00000.wav"),
      join(directory, "100%done", "piece-00001.wav"),
    ]);
  });

  it("refuses pieces shorter than a second", async () => {
    await expect(processor.split(librivoxClip("0880"), join(directory, "tiny"), 0.5)).rejects.toThrow(RangeError);
  });
});
