/** Lecture-like test audio of several lengths, made from real read speech (Debian's pocketsphinx-testdata). */
import { execFile } from "node:child_process";
import { readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { LIBRIVOX_DIRECTORY, runFfmpeg } from "@study/testkit";

export type TestFormat = "mp3" | "wav";

export interface TestAudio {
  /** e.g. "24.7 s · mp3" */
  label: string;
  format: TestFormat;
  /** How many times the clips are repeated. */
  loops: number;
  path: string;
  fileName: string;
  mimeType: string;
  /** As ffprobe reports it (what the pipeline stores as the note's duration). */
  seconds: number;
  bytes: number;
}

const execFileAsync = promisify(execFile);

/**
 * What a phone or recorder typically uploads, so that the pipeline's conversion does its usual work (decode,
 * downmix, resample to 16 kHz): 44.1 kHz stereo, as 128 kbit/s MP3 and as 16-bit WAV.
 */
const ENCODINGS: Record<TestFormat, { args: string[]; mimeType: string }> = {
  mp3: { args: ["-ac", "2", "-ar", "44100", "-c:a", "libmp3lame", "-b:a", "128k"], mimeType: "audio/mpeg" },
  wav: { args: ["-ac", "2", "-ar", "44100", "-c:a", "pcm_s16le"], mimeType: "audio/wav" },
};

async function durationSeconds(path: string): Promise<number> {
  const { stdout } = await execFileAsync("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path]);
  return Number(stdout.trim());
}

/**
 * The five LibriVox clips (24.7 s of "Sense and Sensibility") joined once, then repeated `loops` times for each length (whole repetitions, so no word is cut),
 * in each format; written into `directory`.
 */
export async function makeTestAudio(directory: string, loopsPerLength: number[], formats: TestFormat[]): Promise<TestAudio[]> {
  const clips = readdirSync(LIBRIVOX_DIRECTORY)
    .filter((name) => name.endsWith(".wav"))
    .sort();
  if (clips.length === 0) throw new Error(`no clips in ${LIBRIVOX_DIRECTORY}: install pocketsphinx-testdata`);
  const clipList = join(directory, "clips.txt");
  writeFileSync(clipList, clips.map((name) => `file '${join(LIBRIVOX_DIRECTORY, name)}'\n`).join(""));
  const speech = join(directory, "speech.wav");
  await runFfmpeg(["-f", "concat", "-safe", "0", "-i", clipList, "-c", "copy", speech]);

  const audio: TestAudio[] = [];
  for (const loops of loopsPerLength) {
    for (const format of formats) {
      const fileName = `lecture-${loops}x.${format}`;
      const path = join(directory, fileName);
      await runFfmpeg(["-stream_loop", String(loops - 1), "-i", speech, ...ENCODINGS[format].args, path]);
      const seconds = await durationSeconds(path);
      audio.push({
        label: `${seconds.toFixed(1)} s · ${format}`,
        format,
        loops,
        path,
        fileName,
        mimeType: ENCODINGS[format].mimeType,
        seconds,
        bytes: statSync(path).size,
      });
    }
  }
  return audio;
}
