import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentWords } from "@study/ai";
import { LIBRIVOX_DIRECTORY, librivoxClip, runFfmpeg } from "@study/testkit";
import type { Transcript } from "../../../src/application/ports/transcriber.port";
import { FfmpegAudioProcessor } from "../../../src/adapters/audio/ffmpeg-audio-processor";
import { ExternalToolError } from "@study/platform/run-tool";
import {
  parsePocketsphinxLine,
  PocketsphinxTranscriber,
  segmentWords,
  type RecognisedWord,
} from "../../../src/adapters/transcription/pocketsphinx-transcriber";
import { librivoxReferences, scoringWords, wordEdits, wordErrorRate } from "./word-error-rate";

const transcriber = new PocketsphinxTranscriber({ audioProcessor: new FfmpegAudioProcessor() });
let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "pocketsphinx-"));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("PocketsphinxTranscriber on real speech", () => {
  /** The five librivox clips (24.7 s of speech) decoded once, in parallel, with each clip's progress reports. */
  const decoded = new Map<string, { reference: string; transcript: Transcript; progress: number[] }>();

  beforeAll(async () => {
    const references = await librivoxReferences();
    await Promise.all(
      [...references].map(async ([clip, reference]) => {
        const progress: number[] = [];
        const transcript = await transcriber.transcribe(clip, { language: "en-US", onProgress: (fraction) => progress.push(fraction) });
        decoded.set(clip, { reference, transcript, progress });
      }),
    );
  });

  it("transcribes a 7 s recording into timed segments that contain most of its content words", () => {
    const { reference, transcript, progress } = decoded.get(librivoxClip("0870"))!;

    expect(transcript.language).toBe("en");
    expect(transcript.durationSeconds).toBeCloseTo(7.1, 2);
    expect(transcript.segments.length).toBeGreaterThan(0);
    let previousEnd = 0;
    for (const segment of transcript.segments) {
      expect(segment.startTime).toBeGreaterThanOrEqual(previousEnd);
      expect(segment.endTime).toBeGreaterThan(segment.startTime);
      expect(segment.confidence).toBeGreaterThan(0);
      expect(segment.confidence).toBeLessThanOrEqual(1);
      previousEnd = segment.endTime;
    }
    expect(previousEnd).toBeLessThanOrEqual(transcript.durationSeconds);
    expect(transcript.text).toBe(transcript.segments.map((segment) => segment.text).join(" "));
    expect(transcript.text).toMatch(/^[A-Z].*\.$/);
    expect(transcript.confidence).toBeGreaterThan(0.3);
    expect(transcript.confidence).toBeLessThanOrEqual(1);

    const expected = new Set(contentWords(reference));
    const heard = new Set(contentWords(transcript.text));
    const found = [...expected].filter((word) => heard.has(word));
    expect(found.length / expected.size).toBeGreaterThanOrEqual(0.4);

    expect(progress.at(-1)).toBe(1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it("keeps the word error rate on the five librivox clips below 40 %", () => {
    expect(decoded.size).toBe(5);
    const rate = wordErrorRate([...decoded.values()].map(({ reference, transcript }) => ({ reference, hypothesis: transcript.text })));
    process.stdout.write(`pocketsphinx word error rate on ${LIBRIVOX_DIRECTORY} (5 clips): ${(rate * 100).toFixed(1)} %\n`);
    expect(rate).toBeLessThan(0.4);
  });

  it("kills the decoder when cancelled mid-way, before the rest of the audio is decoded", async () => {
    // ~2 minutes of speech: the five clips, four times over.
    const clips = [...(await librivoxReferences()).keys()];
    const inputs = Array.from({ length: 4 }, () => clips).flat();
    const long = join(directory, "long.wav");
    await runFfmpeg([
      ...inputs.flatMap((clip) => ["-i", clip]),
      "-filter_complex",
      `${inputs.map((_, index) => `[${index}:a]`).join("")}concat=n=${inputs.length}:v=0:a=1`,
      "-ar",
      "16000",
      "-ac",
      "1",
      "-c:a",
      "pcm_s16le",
      "-fflags",
      "+bitexact",
      "-flags:a",
      "+bitexact",
      long,
    ]);
    const controller = new AbortController();
    const progress: number[] = [];
    let abortedAt = 0;
    const transcription = transcriber.transcribe(long, {
      signal: controller.signal,
      onProgress: (fraction) => {
        progress.push(fraction);
        if (!abortedAt) {
          abortedAt = Date.now();
          controller.abort();
        }
      },
    });
    await expect(transcription).rejects.toMatchObject({ name: "AbortError" });
    // The promise settles once the process is gone; decoding the rest would take several seconds.
    expect(Date.now() - abortedAt).toBeLessThan(1000);
    expect(progress).toHaveLength(1);
    expect(progress[0]).toBeLessThan(0.2);
  });

  it("refuses a language other than English without starting the decoder", async () => {
    await expect(transcriber.transcribe(librivoxClip("0880"), { language: "fr" })).rejects.toMatchObject({
      kind: "precondition",
      code: "LANGUAGE_NOT_SUPPORTED",
    });
  });

  it("fails with pocketsphinx's own error for audio it cannot decode", async () => {
    const narrowband = join(directory, "8khz.wav");
    await runFfmpeg(["-f", "lavfi", "-i", "sine=duration=1:sample_rate=8000", "-c:a", "pcm_s16le", "-fflags", "+bitexact", narrowband]);
    const failure = transcriber.transcribe(narrowband);
    await expect(failure).rejects.toBeInstanceOf(ExternalToolError);
    await expect(failure).rejects.toThrow(
      /^pocketsphinx_continuous failed with exit code 1: ERROR: .*sample rate \[8000\], but decoder expects \[16000\]/,
    );
  });
});

describe("pocketsphinx output parsing", () => {
  it("reads words, drops silence and noise markers, strips pronunciation variants", () => {
    expect(parsePocketsphinxLine("rather(2) 0.860 1.210 0.981275")).toEqual({ word: "rather", startTime: 0.86, endTime: 1.21, confidence: 0.981275 });
    expect(parsePocketsphinxLine("</s> 5.090 5.280 1.000000")).toEqual({ utteranceEnd: 5.28 });
    for (const marker of ["<s> 0.000 0.190 0.999300", "<sil> 3.590 3.610 0.688222", "[SPEECH] 0.990 1.120 0.527359", "++BREATH++ 1.0 1.2 0.5"]) {
      expect(parsePocketsphinxLine(marker)).toBeUndefined();
    }
    expect(parsePocketsphinxLine("he was not an illness those young man")).toBeUndefined();
  });

  const word = (text: string, startTime: number, endTime: number, confidence = 0.5): RecognisedWord => ({
    word: text,
    startTime,
    endTime,
    confidence,
  });

  it("starts a new sentence after a pause longer than 0.6 s", () => {
    const segments = segmentWords([word("i", 0, 0.2, 1), word("think", 0.2, 0.5, 0.5), word("so", 1.2, 1.4, 0.3), word("yes", 1.5, 1.8, 0.9)]);
    expect(segments).toEqual([
      { text: "I think.", startTime: 0, endTime: 0.5, confidence: 0.75 },
      { text: "So yes.", startTime: 1.2, endTime: 1.8, confidence: 0.6 },
    ]);
  });

  it("cuts a long stretch after 15 words and continues the sentence in the next segment", () => {
    const words = Array.from({ length: 20 }, (_, index) => word(`w${index}`, index * 0.3, index * 0.3 + 0.25));
    const segments = segmentWords(words);
    expect(segments.map((segment) => segment.text.split(" ").length)).toEqual([15, 5]);
    expect(segments[0].text).toMatch(/^W0 .* w14$/);
    expect(segments[1].text).toMatch(/^w15 .* w19\.$/);
    expect(segments[1].startTime).toBeCloseTo(4.5);
  });
});

describe("word error rate helper", () => {
  it("counts substitutions, deletions and insertions over the reference length", () => {
    expect(wordEdits(scoringWords("the cat sat"), scoringWords("The cat sat."))).toBe(0);
    expect(wordEdits(scoringWords("the cat sat"), scoringWords("a cat sat down"))).toBe(2);
    expect(wordErrorRate([{ reference: "mister john dashwood", hypothesis: "mr john" }])).toBeCloseTo(1 / 3);
  });
});
