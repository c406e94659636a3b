import { openAsBlob } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { callOpenAi, type OpenAiClient } from "@study/ai";
import type { TranscriptionSegment, TranscriptionVerbose } from "openai/resources/audio/transcriptions";
import type { AudioProcessor } from "../../application/ports/audio-processor.port";
import type { RecognisedSegment, Transcriber, Transcript, TranscriptionOptions } from "../../application/ports/transcriber.port";
import { languageTagFromWhisper } from "./whisper-languages";

/** OpenAI's upload limit for audio transcriptions (25 MB). */
export const OPENAI_MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
/** Room left in each piece for the WAV header and the muxer's rounding. */
const PIECE_HEADROOM_BYTES = 4096;

export interface OpenAiTranscriberOptions {
  client: OpenAiClient;
  /** Probes the duration and cuts audio above the upload cap into pieces. */
  audioProcessor: AudioProcessor;
  /** A model that answers verbose_json with segments: whisper-1, or a self-hosted Whisper's name. */
  model?: string;
  /** Files larger than this are uploaded in pieces. */
  maxUploadBytes?: number;
  /** Per upload; transcribing 25 MB takes far longer than a chat answer. */
  requestTimeoutMs?: number;
  /** Where pieces are written while a long file is transcribed (removed afterwards). */
  workDirectory?: string;
}

/** A segment's confidence: its tokens' mean probability, exp(avg_logprob). */
function segmentConfidence(segment: TranscriptionSegment): number | undefined {
  return typeof segment.avg_logprob === "number" && Number.isFinite(segment.avg_logprob)
    ? Math.min(1, Math.max(0, Math.exp(segment.avg_logprob)))
    : undefined;
}

/**
 * Speech to text with OpenAI's transcription API (`audio.transcriptions.create`, verbose_json with segment
 * timestamps) or any server speaking it (OPENAI_BASE_URL, e.g. a self-hosted Whisper). A file above the
 * upload cap is cut with the AudioProcessor into pieces that fit, uploaded one after the other (progress and
 * cancellation per piece), and the pieces' segments are put back on the file's timeline by adding each
 * piece's start offset. API failures become AppErrors (see fromOpenAiError in @study/ai).
 */
export class OpenAiTranscriber implements Transcriber {
  readonly name: string;
  private readonly client: OpenAiClient;
  private readonly audioProcessor: AudioProcessor;
  private readonly model: string;
  private readonly maxUploadBytes: number;
  private readonly requestTimeoutMs: number;
  private readonly workDirectory: string;

  constructor(options: OpenAiTranscriberOptions) {
    this.client = options.client;
    this.audioProcessor = options.audioProcessor;
    this.model = options.model ?? "whisper-1";
    this.maxUploadBytes = options.maxUploadBytes ?? OPENAI_MAX_UPLOAD_BYTES;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10 * 60_000;
    this.workDirectory = options.workDirectory ?? tmpdir();
    this.name = `openai:${this.model}`;
  }

  async transcribe(wavPath: string, options: TranscriptionOptions = {}): Promise<Transcript> {
    const { signal } = options;
    signal?.throwIfAborted();
    const [{ size }, { durationSeconds }] = await Promise.all([stat(wavPath), this.audioProcessor.probe(wavPath, signal)]);
    let pieceDirectory: string | undefined;
    try {
      let pieces = [{ path: wavPath, offsetSeconds: 0 }];
      if (size > this.maxUploadBytes) {
        const bytesPerSecond = size / Math.max(durationSeconds, Number.EPSILON);
        // Hundredths of a second: whole seconds would waste up to a second of every piece.
        const maxSeconds = Math.floor(((this.maxUploadBytes - PIECE_HEADROOM_BYTES) / bytesPerSecond) * 100) / 100;
        if (maxSeconds < 1) {
          throw new RangeError(`An upload cap of ${this.maxUploadBytes} bytes holds less than a second of this audio`);
        }
        pieceDirectory = await mkdtemp(join(this.workDirectory, "openai-transcription-"));
        pieces = await this.audioProcessor.split(wavPath, pieceDirectory, maxSeconds, signal);
      }

      const segments: RecognisedSegment[] = [];
      const texts: string[] = [];
      let language: string | undefined;
      for (const [index, piece] of pieces.entries()) {
        const pieceEnd = pieces[index + 1]?.offsetSeconds ?? durationSeconds;
        const result = await this.transcribePiece(piece.path, options.language, signal);
        language ??= languageTagFromWhisper(result.language);
        const text = result.text?.trim() || (result.segments ?? []).map((segment) => segment.text.trim()).join(" ");
        if (text) texts.push(text);
        for (const segment of result.segments ?? []) {
          const segmentText = segment.text.trim();
          if (!segmentText) continue;
          // Whisper may run a segment a little past its piece's end; keep the timeline from overlapping.
          const endTime = Math.min(piece.offsetSeconds + segment.end, Math.max(pieceEnd, piece.offsetSeconds + segment.start));
          segments.push({ text: segmentText, startTime: piece.offsetSeconds + segment.start, endTime, confidence: segmentConfidence(segment) });
        }
        options.onProgress?.(index === pieces.length - 1 ? 1 : Math.min(1, pieceEnd / Math.max(durationSeconds, Number.EPSILON)));
      }
      return {
        text: texts.join(" "),
        segments,
        language: language ?? options.language ?? "und",
        confidence: meanConfidence(segments),
        durationSeconds,
      };
    } finally {
      if (pieceDirectory) await rm(pieceDirectory, { recursive: true, force: true });
    }
  }

  private async transcribePiece(path: string, language: string | undefined, signal: AbortSignal | undefined): Promise<TranscriptionVerbose> {
    // A Blob backed by the file: streamed when sent, and readable again if the SDK retries.
    const file = new File([await openAsBlob(path)], basename(path), { type: "audio/wav" });
    return callOpenAi(
      () =>
        this.client.audio.transcriptions.create(
          {
            file,
            model: this.model,
            response_format: "verbose_json",
            timestamp_granularities: ["segment"],
            // The API takes ISO-639-1: "en-US" → "en".
            ...(language ? { language: language.split("-")[0].toLowerCase() } : {}),
          },
          { signal, timeout: this.requestTimeoutMs },
        ),
      signal,
    );
  }
}

/**
 * Mean of the segments' confidences weighted by their duration; undefined when no segment has a score (some
 * Whisper-compatible servers omit avg_logprob, and nothing heard has none): an invented value would pass for
 * a measured one.
 */
function meanConfidence(segments: RecognisedSegment[]): number | undefined {
  let weighted = 0;
  let seconds = 0;
  for (const segment of segments) {
    if (segment.confidence === undefined) continue;
    const weight = Math.max(segment.endTime - segment.startTime, 0.01);
    weighted += segment.confidence * weight;
    seconds += weight;
  }
  return seconds > 0 ? weighted / seconds : undefined;
}
