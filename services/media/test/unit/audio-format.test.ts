import { execFile } from "node:child_process";
import { mkdtemp, open, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  AUDIO_FORMAT_DETECTION_BYTES,
  SUPPORTED_AUDIO_MIME_TYPES,
  audioFormatFromFileName,
  audioFormatFromMimeType,
  detectAudioFormat,
  extensionOfAudioFormat,
  isSupportedAudioMimeType,
  mimeTypeOfAudioFormat,
  type AudioFormat,
} from "../../src/domain/audio-format";

const run = promisify(execFile);

/** Real files written by ffmpeg: name → [ffmpeg output arguments, expected format or null]. */
const SAMPLES: Record<string, { args: string[]; expected: AudioFormat | null }> = {
  "tone.mp3": { args: ["-c:a", "libmp3lame"], expected: "mp3" },
  "tone-no-id3.mp3": { args: ["-c:a", "libmp3lame", "-id3v2_version", "0", "-write_xing", "0"], expected: "mp3" },
  "tone.wav": { args: [], expected: "wav" },
  "tone.m4a": { args: ["-c:a", "aac"], expected: "m4a" },
  "tone.aac": { args: ["-c:a", "aac"], expected: "aac" },
  "tone.ogg": { args: ["-c:a", "libvorbis"], expected: "ogg" },
  "tone.opus": { args: ["-c:a", "libopus"], expected: "ogg" },
  "tone.flac": { args: [], expected: "flac" },
  "tone.webm": { args: ["-c:a", "libopus"], expected: "webm" },
  "tone-audio-only.mp4": { args: ["-c:a", "aac"], expected: "mp4" },
  "clip.mp4": { args: ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"], expected: "mp4" },
  // Containers ffmpeg reads but the spec does not list.
  "tone.mka": { args: ["-c:a", "libopus"], expected: null },
  "clip.mov": { args: ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest"], expected: null },
};

let directory: string;
const leadingBytes = new Map<string, Uint8Array>();

async function firstBytes(path: string, count = AUDIO_FORMAT_DETECTION_BYTES): Promise<Uint8Array> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(count);
    const { bytesRead } = await handle.read(buffer, 0, count, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "audio-format-"));
  await Promise.all(
    Object.entries(SAMPLES).map(async ([name, { args }]) => {
      const withVideo = name.startsWith("clip.");
      const inputs = [
        ...(withVideo ? ["-f", "lavfi", "-i", "color=c=blue:s=64x48:d=1"] : []),
        ...["-f", "lavfi", "-i", "sine=frequency=440:duration=1"],
      ];
      await run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...inputs, ...args, join(directory, name)]);
      leadingBytes.set(name, await firstBytes(join(directory, name)));
    }),
  );
}, 30_000);

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("detectAudioFormat on files written by ffmpeg", () => {
  it.each(Object.entries(SAMPLES).map(([name, { expected }]) => [name, expected] as const))("%s → %s", (name, expected) => {
    expect(detectAudioFormat(leadingBytes.get(name)!)).toBe(expected);
  });

  it("sees through an ID3 tag in front of ADTS AAC and FLAC", () => {
    const mp3 = leadingBytes.get("tone.mp3")!;
    expect(String.fromCharCode(...mp3.subarray(0, 3))).toBe("ID3");
    const tagSize = 10 + ((mp3[6] << 21) | (mp3[7] << 14) | (mp3[8] << 7) | mp3[9]);
    const id3Tag = mp3.subarray(0, tagSize);
    expect(detectAudioFormat(Buffer.concat([id3Tag, leadingBytes.get("tone.aac")!]))).toBe("aac");
    expect(detectAudioFormat(Buffer.concat([id3Tag, leadingBytes.get("tone.flac")!]))).toBe("flac");
    expect(detectAudioFormat(Buffer.concat([id3Tag, Buffer.from("plain text, not audio")]))).toBeNull();
    // Only the tag's start at hand: an ID3 tag almost always belongs to an MP3.
    expect(detectAudioFormat(id3Tag.subarray(0, 10))).toBe("mp3");
  });

  it("needs only the first few bytes of most formats", () => {
    expect(detectAudioFormat(leadingBytes.get("tone.wav")!.subarray(0, 12))).toBe("wav");
    expect(detectAudioFormat(leadingBytes.get("tone.flac")!.subarray(0, 4))).toBe("flac");
    expect(detectAudioFormat(leadingBytes.get("tone.ogg")!.subarray(0, 4))).toBe("ogg");
    expect(detectAudioFormat(leadingBytes.get("tone.aac")!.subarray(0, 4))).toBe("aac");
  });

  it("refuses what is not audio", async () => {
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    const pdf = Buffer.from("%PDF-1.7\n%âãÏÓ\n", "latin1");
    const zip = Buffer.from("504b0304140000000800", "hex");
    expect(detectAudioFormat(png)).toBeNull();
    expect(detectAudioFormat(pdf)).toBeNull();
    expect(detectAudioFormat(zip)).toBeNull();
    expect(detectAudioFormat(Buffer.from("<!doctype html><html></html>"))).toBeNull();
    expect(detectAudioFormat(new Uint8Array())).toBeNull();
    expect(detectAudioFormat(new Uint8Array([0xff]))).toBeNull();
    // A RIFF file that is not WAVE (an AVI) and a frame sync with reserved fields.
    expect(detectAudioFormat(Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), Buffer.from("AVI LIST")]))).toBeNull();
    expect(detectAudioFormat(new Uint8Array([0xff, 0xeb, 0x90, 0x00]))).toBeNull();
    // The source of this test is text, not audio.
    expect(detectAudioFormat(await readFile(__filename))).toBeNull();
  });
});

describe("MIME types and extensions", () => {
  it("maps the spec's import MIME types one to one onto the upload formats", () => {
    expect(SUPPORTED_AUDIO_MIME_TYPES).toEqual([
      "audio/mpeg",
      "audio/wav",
      "audio/m4a",
      "audio/aac",
      "audio/ogg",
      "audio/flac",
      "audio/webm",
      "video/mp4",
    ]);
    expect(SUPPORTED_AUDIO_MIME_TYPES.map((mimeType) => audioFormatFromMimeType(mimeType))).toEqual([
      "mp3",
      "wav",
      "m4a",
      "aac",
      "ogg",
      "flac",
      "webm",
      "mp4",
    ]);
  });

  it("accepts common aliases and ignores case and parameters", () => {
    expect(audioFormatFromMimeType("audio/x-wav")).toBe("wav");
    expect(audioFormatFromMimeType("audio/wave")).toBe("wav");
    expect(audioFormatFromMimeType("audio/mp4")).toBe("m4a");
    expect(audioFormatFromMimeType("audio/x-m4a")).toBe("m4a");
    expect(audioFormatFromMimeType("audio/mp3")).toBe("mp3");
    expect(audioFormatFromMimeType("Audio/MPEG; charset=binary")).toBe("mp3");
    expect(audioFormatFromMimeType("audio/ogg; codecs=opus")).toBe("ogg");
    expect(audioFormatFromMimeType("video/webm")).toBe("webm");
    expect(audioFormatFromMimeType("audio/x-flac")).toBe("flac");
    expect(isSupportedAudioMimeType("audio/aac")).toBe(true);
  });

  it("refuses other types", () => {
    for (const mimeType of ["image/png", "application/pdf", "text/html", "video/quicktime", "audio/midi", "", undefined, null]) {
      expect(audioFormatFromMimeType(mimeType)).toBeNull();
      expect(isSupportedAudioMimeType(mimeType)).toBe(false);
    }
  });

  it("recognises file names by extension", () => {
    expect(audioFormatFromFileName("Lecture 1.MP3")).toBe("mp3");
    expect(audioFormatFromFileName("voice.memo.m4a")).toBe("m4a");
    expect(audioFormatFromFileName("talk.opus")).toBe("ogg");
    expect(audioFormatFromFileName("clip.mp4")).toBe("mp4");
    expect(audioFormatFromFileName("notes.txt")).toBeNull();
    expect(audioFormatFromFileName("mp3")).toBeNull();
    expect(audioFormatFromFileName("trailing.")).toBeNull();
  });

  it("gives each format's spec MIME type and usual extension", () => {
    expect(mimeTypeOfAudioFormat("m4a")).toBe("audio/m4a");
    expect(mimeTypeOfAudioFormat("mp4")).toBe("video/mp4");
    expect(extensionOfAudioFormat("ogg")).toBe("ogg");
    expect(extensionOfAudioFormat("wav")).toBe("wav");
  });
});
