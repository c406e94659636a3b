/** A stretch of recognised speech on the audio's timeline (seconds from the start). */
export interface RecognisedSegment {
  text: string;
  startTime: number;
  endTime: number;
  /** 0-1 when the engine reports it. */
  confidence?: number;
  speaker?: string;
}

export interface Transcript {
  text: string;
  segments: RecognisedSegment[];
  /** BCP-47 language tag, e.g. "en". */
  language: string;
  /** Mean confidence 0-1; absent when the engine gave no scores (not an estimate: the note then has none). */
  confidence?: number;
  durationSeconds: number;
}

export interface TranscriptionOptions {
  /** Expected language (BCP-47), when known. */
  language?: string;
  /** Called with the fraction (0-1) of the audio transcribed so far. */
  onProgress?: (fraction: number) => void;
  /** Aborts the work (job cancelled); the promise then rejects with an AbortError. */
  signal?: AbortSignal;
}

/**
 * Port: speech to text. Input is a 16 kHz mono WAV file prepared by the AudioProcessor; segment times are
 * on that file's timeline (the caller maps them back when the audio was sped up).
 */
export interface Transcriber {
  readonly name: string;
  transcribe(wavPath: string, options?: TranscriptionOptions): Promise<Transcript>;
}
