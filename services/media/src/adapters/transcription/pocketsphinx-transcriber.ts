import { join, resolve } from "node:path";
import { AppError } from "@study/platform/errors";
import type { AudioProcessor } from "../../application/ports/audio-processor.port";
import type { RecognisedSegment, Transcriber, Transcript, TranscriptionOptions } from "../../application/ports/transcriber.port";
import { runTool } from "@study/platform/run-tool";

/** Debian's pocketsphinx-en-us: acoustic model `en-us/`, language model and pronunciation dictionary. */
export const DEBIAN_POCKETSPHINX_MODEL_DIRECTORY = "/usr/share/pocketsphinx/model/en-us";

/** A pause longer than this between two words ends a segment (and a sentence). */
const SEGMENT_PAUSE_SECONDS = 0.6;
/** A segment is cut after this many words even without a pause, to keep subtitles-sized pieces. */
const SEGMENT_MAX_WORDS = 15;

export interface PocketsphinxTranscriberOptions {
  /** Gives the duration of the input (for progress and the transcript). */
  audioProcessor: AudioProcessor;
  /** Holds `en-us/` (acoustic model), `en-us.lm.bin` and `cmudict-en-us.dict`. */
  modelDirectory?: string;
  binary?: string;
}

/** One recognised word as `-time yes` prints it: "<word> <start s> <end s> <posterior>". */
export interface RecognisedWord {
  word: string;
  startTime: number;
  endTime: number;
  /** The word's posterior probability given the utterance's lattice, 0-1. */
  confidence: number;
}

const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/;

/**
 * Reads one line of `pocketsphinx_continuous -time yes` output. Each utterance (speech between pauses the
 * voice-activity detector finds) prints its hypothesis line, then one line per word, from `<s>` to `</s>`.
 * Returns the word, `{ utteranceEnd }` for an utterance's closing `</s>`, or undefined for the hypothesis
 * line and the silence/noise markers.
 */
export function parsePocketsphinxLine(line: string): RecognisedWord | { utteranceEnd: number } | undefined {
  const match = WORD_LINE.exec(line.trim());
  if (!match) return undefined; // the hypothesis line
  const [, token, start, end, posterior] = match;
  if (token === "</s>") return { utteranceEnd: Number(end) };
  // <s>, <sil>, [NOISE], [SPEECH], ++BREATH++ ... are silence and noise markers, not words.
  if (/^[<[+]/.test(token)) return undefined;
  return {
    // Alternative pronunciations are printed as "rather(2)".
    word: token.replace(/\(\d+\)$/, ""),
    startTime: Number(start),
    endTime: Number(end),
    // pocketsphinx prints exp(log posterior), a probability already; the clamp only absorbs rounding.
    confidence: Math.min(1, Math.max(0, Number(posterior))),
  };
}

/** "i" and its contractions are the only words English writes capitalised by rule. */
function withEnglishCase(word: string): string {
  return /^i(?:'(?:m|ll|ve|d))?$/.test(word) ? `I${word.slice(1)}` : word;
}

const mean = (values: number[]) => (values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : 0);

/**
 * Groups words into segments: a new one starts after a pause of more than 0.6 s or after 15 words.
 * pocketsphinx prints neither case nor punctuation; a segment that ends at a pause is written as a sentence
 * (capital first letter, final period) so the transcript reads as text and sentence-based tools (summaries,
 * flashcards) have units to work with. A segment cut for length continues the sentence into the next one.
 */
export function segmentWords(words: RecognisedWord[]): RecognisedSegment[] {
  const groups: RecognisedWord[][] = [];
  for (const word of words) {
    const current = groups.at(-1);
    const previous = current?.at(-1);
    if (!current || !previous || word.startTime - previous.endTime > SEGMENT_PAUSE_SECONDS || current.length >= SEGMENT_MAX_WORDS) {
      groups.push([word]);
    } else {
      current.push(word);
    }
  }
  let startsSentence = true;
  return groups.map((group, index) => {
    const next = groups[index + 1];
    const endsSentence = !next || next[0].startTime - group[group.length - 1].endTime > SEGMENT_PAUSE_SECONDS;
    let text = group.map((word) => withEnglishCase(word.word)).join(" ");
    if (startsSentence) text = text.charAt(0).toUpperCase() + text.slice(1);
    if (endsSentence) text += ".";
    startsSentence = endsSentence;
    return {
      text,
      startTime: group[0].startTime,
      endTime: group[group.length - 1].endTime,
      confidence: mean(group.map((word) => word.confidence)),
    };
  });
}

/**
 * Offline English speech recognition with Debian's pocketsphinx (CMU Sphinx 5prealpha) and its US English
 * models. One `pocketsphinx_continuous -infile <wav> -time yes` process decodes the whole file; it prints
 * each utterance as soon as the voice-activity detector sees it end, so progress is reported per utterance
 * (the end time of its last word over the file's duration) without cutting the audio, which would split
 * words at the cuts. Cancelling kills the process. Input: the AudioProcessor's speech WAV (16 kHz mono with a
 * plain 44-byte header; pocketsphinx rejects other rates and would decode extra header chunks as sound).
 *
 * Confidence: pocketsphinx prints each word's posterior probability in its utterance's word lattice (a
 * value in 0-1, computed with the default `-ascale 20`); a segment's confidence is the mean over its words
 * and the transcript's the mean over all words (0 when nothing was recognised).
 */
export class PocketsphinxTranscriber implements Transcriber {
  readonly name = "pocketsphinx";
  private readonly audioProcessor: AudioProcessor;
  private readonly modelDirectory: string;
  private readonly binary: string;

  constructor(options: PocketsphinxTranscriberOptions) {
    this.audioProcessor = options.audioProcessor;
    this.modelDirectory = options.modelDirectory ?? DEBIAN_POCKETSPHINX_MODEL_DIRECTORY;
    this.binary = options.binary ?? "pocketsphinx_continuous";
  }

  async transcribe(wavPath: string, options: TranscriptionOptions = {}): Promise<Transcript> {
    const { signal, onProgress } = options;
    if (options.language && options.language.split("-")[0].toLowerCase() !== "en") {
      throw new AppError(
        "precondition",
        "LANGUAGE_NOT_SUPPORTED",
        `The offline transcriber only recognises English, not "${options.language}"; an OpenAI-compatible transcription service (OPENAI_API_KEY) handles other languages`,
      );
    }
    const { durationSeconds } = await this.audioProcessor.probe(wavPath, signal);
    const words: RecognisedWord[] = [];
    let reported = 0;
    const report = (fraction: number) => {
      // Monotonic and never past 1, whatever the decoder's rounding.
      const bounded = Math.min(1, fraction);
      if (bounded > reported) {
        reported = bounded;
        onProgress?.(bounded);
      }
    };
    await runTool(
      this.binary,
      [
        "-infile",
        resolve(wavPath),
        "-time",
        "yes",
        "-hmm",
        join(this.modelDirectory, "en-us"),
        "-lm",
        join(this.modelDirectory, "en-us.lm.bin"),
        "-dict",
        join(this.modelDirectory, "cmudict-en-us.dict"),
      ],
      {
        signal,
        onStdoutLine: (line) => {
          const parsed = parsePocketsphinxLine(line);
          if (!parsed) return;
          if ("utteranceEnd" in parsed) {
            if (durationSeconds > 0) report(parsed.utteranceEnd / durationSeconds);
          } else {
            words.push(parsed);
          }
        },
        // pocketsphinx logs pages of INFO lines; its ERROR/FATAL lines say what went wrong.
        selectErrorLines: (lines) => {
          const problems = lines.filter((line) => /^(ERROR|FATAL)/.test(line));
          return problems.length ? problems : lines;
        },
      },
    );
    report(1);
    const segments = segmentWords(words);
    return {
      text: segments.map((segment) => segment.text).join(" "),
      segments,
      language: "en",
      confidence: mean(words.map((word) => word.confidence)),
      durationSeconds,
    };
  }
}
