import { readFile } from "node:fs/promises";

export interface WavFile {
  format: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** Offset of the first sample byte in the file. */
  dataOffset: number;
  data: Buffer;
  durationSeconds: number;
}

/** Parses a RIFF/WAVE file's chunks (fmt and data). */
export function parseWav(bytes: Buffer): WavFile {
  if (bytes.toString("ascii", 0, 4) !== "RIFF" || bytes.toString("ascii", 8, 12) !== "WAVE") throw new Error("not a WAV file");
  let offset = 12;
  let fmt: Omit<WavFile, "data" | "dataOffset" | "durationSeconds"> | undefined;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString("ascii", offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === "fmt ") {
      fmt = {
        format: bytes.readUInt16LE(body),
        channels: bytes.readUInt16LE(body + 2),
        sampleRate: bytes.readUInt32LE(body + 4),
        bitsPerSample: bytes.readUInt16LE(body + 14),
      };
    } else if (id === "data") {
      if (!fmt) throw new Error("data chunk before fmt chunk");
      const data = bytes.subarray(body, Math.min(bytes.length, body + size));
      const bytesPerSecond = fmt.sampleRate * fmt.channels * (fmt.bitsPerSample / 8);
      return { ...fmt, dataOffset: body, data, durationSeconds: data.length / bytesPerSecond };
    }
    offset = body + size + (size % 2);
  }
  throw new Error("WAV file without a data chunk");
}

export async function readWav(path: string): Promise<WavFile> {
  return parseWav(await readFile(path));
}

/** Zero crossings per second of 16-bit mono PCM: twice the frequency of a pure tone. */
export function zeroCrossingsPerSecond(wav: WavFile): number {
  let crossings = 0;
  const samples = wav.data.length / 2;
  for (let index = 1; index < samples; index += 1) {
    const previous = wav.data.readInt16LE((index - 1) * 2);
    const current = wav.data.readInt16LE(index * 2);
    if ((previous < 0 && current >= 0) || (previous >= 0 && current < 0)) crossings += 1;
  }
  return crossings / wav.durationSeconds;
}
