import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOpenAiClient } from "@study/ai";
import { AppError } from "@study/platform/errors";
import { librivoxClip } from "@study/testkit";
import { openAiErrorBody, startOpenAiPeer, type OpenAiPeer, type PeerReply, type PeerRequest } from "../../../../../libs/ai/test/support/openai-peer";
import { FfmpegAudioProcessor } from "../../../src/adapters/audio/ffmpeg-audio-processor";
import { OpenAiTranscriber, type OpenAiTranscriberOptions } from "../../../src/adapters/transcription/openai-transcriber";
import { parseWav, readWav } from "../audio/fixtures";

const CLIP = librivoxClip("0870"); // 7.1 s, 227 244 bytes
const audioProcessor = new FfmpegAudioProcessor();
let peer: OpenAiPeer;
let reply: (request: PeerRequest, index: number) => PeerReply | Promise<PeerReply>;
let workDirectory: string;

beforeAll(async () => {
  peer = await startOpenAiPeer((request, index) => reply(request, index));
});

afterAll(async () => {
  await peer.close();
});

beforeEach(async () => {
  peer.requests.length = 0;
  workDirectory = await mkdtemp(join(tmpdir(), "openai-transcriber-"));
});

afterEach(async () => {
  await rm(workDirectory, { recursive: true, force: true });
});

function transcriber(options: Partial<OpenAiTranscriberOptions> & { timeoutMs?: number } = {}) {
  const client = createOpenAiClient({ apiKey: "sk-test", baseURL: peer.baseURL, timeoutMs: options.timeoutMs ?? 5000, maxRetries: 0 });
  return new OpenAiTranscriber({ client, audioProcessor, workDirectory, ...options });
}

/** What whisper-1 answers for an uploaded WAV: two segments splitting it in half, tagged with the piece's number. */
async function whisperAnswer(request: PeerRequest, index: number): Promise<PeerReply> {
  const file = (await request.formData()).get("file") as File;
  const duration = parseWav(Buffer.from(await file.arrayBuffer())).durationSeconds;
  const segment = (id: number, start: number, end: number, text: string, avgLogprob: number) => ({
    id,
    seek: 0,
    start,
    end,
    text,
    tokens: [1, 2, 3],
    temperature: 0,
    avg_logprob: avgLogprob,
    compression_ratio: 1.2,
    no_speech_prob: 0.01,
  });
  return {
    json: {
      task: "transcribe",
      language: "english",
      duration,
      text: ` Piece ${index} begins. Piece ${index} ends.`,
      segments: [
        segment(0, 0, duration / 2, ` Piece ${index} begins.`, Math.log(0.8)),
        segment(1, duration / 2, duration, ` Piece ${index} ends.`, Math.log(0.6)),
      ],
    },
  };
}

describe("OpenAiTranscriber", () => {
  it("uploads the WAV as multipart with model, verbose_json and segment timestamps, and maps the answer", async () => {
    reply = whisperAnswer;
    const progress: number[] = [];
    const transcript = await transcriber().transcribe(CLIP, { language: "en-GB", onProgress: (fraction) => progress.push(fraction) });

    expect(peer.requests).toHaveLength(1);
    const [request] = peer.requests;
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/v1/audio/transcriptions");
    expect(request.headers.authorization).toBe("Bearer sk-test");
    expect(request.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    const form = await request.formData();
    expect(form.get("model")).toBe("whisper-1");
    expect(form.get("response_format")).toBe("verbose_json");
    expect(form.getAll("timestamp_granularities[]")).toEqual(["segment"]);
    expect(form.get("language")).toBe("en");
    const file = form.get("file") as File;
    expect(file.name).toBe("sense_and_sensibility_01_austen_64kb-0870.wav");
    expect(file.type).toBe("audio/wav");
    expect(Buffer.from(await file.arrayBuffer()).equals(await readFile(CLIP))).toBe(true);

    expect(transcript).toEqual({
      text: "Piece 0 begins. Piece 0 ends.",
      segments: [
        { text: "Piece 0 begins.", startTime: 0, endTime: 3.55, confidence: expect.closeTo(0.8, 6) },
        { text: "Piece 0 ends.", startTime: 3.55, endTime: 7.1, confidence: expect.closeTo(0.6, 6) },
      ],
      language: "en",
      confidence: expect.closeTo(0.7, 6),
      durationSeconds: 7.1,
    });
    expect(progress).toEqual([1]);
  });

  it("splits audio above the upload cap and stitches the pieces' segments onto one timeline", async () => {
    reply = whisperAnswer;
    const progress: number[] = [];
    // 100 kB holds ~3 s of 16 kHz 16-bit mono: the 7.1 s clip goes up in three pieces.
    const transcript = await transcriber({ maxUploadBytes: 100_000 }).transcribe(CLIP, { onProgress: (fraction) => progress.push(fraction) });

    expect(peer.requests).toHaveLength(3);
    const uploads = await Promise.all(
      peer.requests.map(async (request) => parseWav(Buffer.from(await ((await request.formData()).get("file") as File).arrayBuffer()))),
    );
    for (const upload of uploads) expect(upload.data.length + upload.dataOffset).toBeLessThanOrEqual(100_000);
    // Together the pieces carry exactly the clip's samples.
    expect(Buffer.concat(uploads.map((upload) => upload.data)).equals((await readWav(CLIP)).data)).toBe(true);

    const offsets = [0, uploads[0].durationSeconds, uploads[0].durationSeconds + uploads[1].durationSeconds];
    expect(transcript.segments).toHaveLength(6);
    transcript.segments.forEach((segment, index) => {
      const piece = Math.floor(index / 2);
      const half = uploads[piece].durationSeconds / 2;
      expect(segment.text).toBe(index % 2 === 0 ? `Piece ${piece} begins.` : `Piece ${piece} ends.`);
      expect(segment.startTime).toBeCloseTo(offsets[piece] + (index % 2) * half, 6);
      expect(segment.endTime).toBeCloseTo(offsets[piece] + (index % 2 === 0 ? half : 2 * half), 6);
    });
    expect(transcript.segments.at(-1)!.endTime).toBeCloseTo(7.1, 6);
    expect(transcript.text).toBe("Piece 0 begins. Piece 0 ends. Piece 1 begins. Piece 1 ends. Piece 2 begins. Piece 2 ends.");
    expect(transcript.durationSeconds).toBe(7.1);
    expect(progress).toHaveLength(3);
    expect(progress[0]).toBeCloseTo(offsets[1] / 7.1, 6);
    expect(progress[1]).toBeCloseTo(offsets[2] / 7.1, 6);
    expect(progress[2]).toBe(1);
    expect(await readdir(workDirectory)).toEqual([]); // pieces removed
  });

  it("turns a rejected API key into a clear configuration error and removes the pieces", async () => {
    reply = () => ({ status: 401, json: openAiErrorBody("Incorrect API key provided: sk-test.", "invalid_request_error", "invalid_api_key") });
    const failure = transcriber({ maxUploadBytes: 100_000 }).transcribe(CLIP);
    await expect(failure).rejects.toBeInstanceOf(AppError);
    await expect(failure).rejects.toMatchObject({
      kind: "unavailable",
      code: "AI_AUTH_FAILED",
      message: "The AI service rejected the API key (HTTP 401): check OPENAI_API_KEY",
    });
    expect(peer.requests).toHaveLength(1); // stops at the first failed piece
    expect(await readdir(workDirectory)).toEqual([]);
  });

  it("reports rate limiting with the server's retry-after", async () => {
    reply = () => ({
      status: 429,
      headers: { "retry-after": "20" },
      json: openAiErrorBody("Rate limit reached for whisper-1", "requests", "rate_limit_exceeded"),
    });
    await expect(transcriber().transcribe(CLIP)).rejects.toMatchObject({
      kind: "rate_limited",
      code: "RATE_LIMITED",
      action: "RETRY_LATER",
      details: [{ field: "retryAfterSeconds", message: "20" }],
    });
  });

  it("reports a server that does not answer in time as a timeout", async () => {
    reply = () => ({ delayMs: 2000, json: {} });
    await expect(transcriber({ requestTimeoutMs: 150 }).transcribe(CLIP)).rejects.toMatchObject({ kind: "timeout", code: "UPSTREAM_TIMEOUT" });
  });

  it("rejects with an AbortError, not an API error, when cancelled during an upload", async () => {
    const controller = new AbortController();
    reply = () => {
      controller.abort();
      return { delayMs: 2000, json: {} };
    };
    await expect(transcriber().transcribe(CLIP, { signal: controller.signal })).rejects.toMatchObject({ name: "AbortError" });
  });

  it("keeps a language code a self-hosted server answers with, and reports no confidence for unscored segments", async () => {
    reply = () => ({ json: { language: "pt", duration: 7.1, text: "Olá.", segments: [{ id: 0, start: 0.5, end: 1.5, text: " Olá." }] } });
    const transcript = await transcriber({ model: "Systran/faster-whisper-small" }).transcribe(CLIP);
    expect((await peer.requests[0].formData()).get("model")).toBe("Systran/faster-whisper-small");
    expect(transcript).toMatchObject({ language: "pt", segments: [{ text: "Olá.", startTime: 0.5, endTime: 1.5, confidence: undefined }] });
    // Unknown, not an invented estimate: the note's metadata then has no confidence key.
    expect(transcript.confidence).toBeUndefined();
  });
});
