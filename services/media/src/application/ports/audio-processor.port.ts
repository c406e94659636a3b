export interface AudioProbe {
  durationSeconds: number;
  /** Container/codec name as reported by the probe, e.g. "mp3", "wav", "mov,mp4,m4a,3gp,3g2,mj2". */
  format: string;
  hasAudio: boolean;
}

/** Port: audio conversion (ffmpeg in production and tests). */
export interface AudioProcessor {
  probe(inputPath: string, signal?: AbortSignal): Promise<AudioProbe>;
  /**
   * Writes 16 kHz mono 16-bit PCM WAV for speech recognition; `speed` 2 plays it twice as fast (pitch kept),
   * which halves the audio a paid engine is billed for.
   */
  toSpeechWav(inputPath: string, outputPath: string, options: { speed: 1 | 2; signal?: AbortSignal }): Promise<void>;
  /**
   * Cuts a file into consecutive pieces of at most `maxSeconds` (≥ 1) each; returns their paths and start
   * offsets in order. Pieces are 16-bit PCM WAV at the input's own rate and channels.
   */
  split(inputPath: string, outputDirectory: string, maxSeconds: number, signal?: AbortSignal): Promise<{ path: string; offsetSeconds: number }[]>;
}
