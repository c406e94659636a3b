import { audioImportMimeType, defaultImportTitle, firstCharacters } from "../../src/domain/import-request";
import { appErrorOf } from "@study/testkit/refusal";

describe("firstCharacters (titles made from video titles and file names)", () => {
  it("keeps text of at most `max` characters whole", () => {
    expect(firstCharacters("Lecture 1: Cells", 255)).toBe("Lecture 1: Cells");
    expect(firstCharacters("x".repeat(255), 255)).toBe("x".repeat(255));
  });

  it("cuts longer text to `max` code points, never half of a surrogate pair", () => {
    const title = `${"🧬".repeat(200)}${"x".repeat(100)}`;
    const shortened = firstCharacters(title, 255);
    expect([...shortened]).toHaveLength(255);
    expect(shortened).toBe(`${"🧬".repeat(200)}${"x".repeat(55)}`);
    // 255 UTF-16 units would have ended in a lone high surrogate.
    expect(firstCharacters("🧬".repeat(200), 255)).toBe("🧬".repeat(200));
    expect(firstCharacters(`a${"🧬".repeat(200)}`, 2)).toBe("a🧬");
  });
});

describe("titles media makes when the user gave none", () => {
  it("an upload: the file name without its extension", () => {
    expect(defaultImportTitle("AUDIO_UPLOAD", { fileName: "sense_and_sensibility_0870.wav" })).toBe("sense_and_sensibility_0870");
    expect(defaultImportTitle("AUDIO_UPLOAD", { fileName: "Lecture 1. Cells.MP3" })).toBe("Lecture 1. Cells");
    // Nothing but an extension, or no extension at all: the name stays whole.
    expect(defaultImportTitle("AUDIO_UPLOAD", { fileName: ".mp3" })).toBe(".mp3");
    expect(defaultImportTitle("AUDIO_UPLOAD", { fileName: "recording" })).toBe("recording");
    expect(defaultImportTitle("AUDIO_UPLOAD", { fileName: `${"🧬".repeat(300)}.wav` })).toBe("🧬".repeat(255));
  });

  it("an audio URL: the spec's prefix and the URL's decoded file name, extension kept", () => {
    expect(defaultImportTitle("AUDIO_IMPORT", { sourceUrl: "https://cdn.example.com/a/lecture%201.mp3?x=1" })).toBe("Audio Import: lecture 1.mp3");
    expect(defaultImportTitle("AUDIO_IMPORT", { sourceUrl: "https://cdn.example.com/" })).toBe("Audio Import: cdn.example.com");
    expect(defaultImportTitle("AUDIO_IMPORT", { sourceUrl: "https://cdn.example.com/%E0%A4%A" })).toBe("Audio Import: %E0%A4%A");
    expect([...defaultImportTitle("AUDIO_IMPORT", { sourceUrl: `https://cdn.example.com/${"x".repeat(300)}.mp3` })]).toHaveLength(255);
  });

  it("a video: its own title, shortened; NUL characters of names are dropped", () => {
    expect(defaultImportTitle("VIDEO_IMPORT", { videoTitle: "  Lecture 7: Enzymes " })).toBe("Lecture 7: Enzymes");
    expect(defaultImportTitle("VIDEO_IMPORT", { videoTitle: "🧬".repeat(300) })).toBe("🧬".repeat(255));
    expect(defaultImportTitle("VIDEO_IMPORT", { videoTitle: "Cells\u0000" })).toBe("Cells");
    expect(defaultImportTitle("AUDIO_IMPORT", { sourceUrl: "https://cdn.example.com/a%00b.mp3" })).toBe("Audio Import: ab.mp3");
  });
});

describe("the format of an audio URL import", () => {
  it("is the named MIME type (or an alias of it), else the one the file name's extension stands for", () => {
    expect(audioImportMimeType("Audio/X-WAV; codecs=1", "lecture.mp3")).toBe("audio/wav");
    expect(audioImportMimeType(undefined, "lecture.MP3")).toBe("audio/mpeg");
    expect(audioImportMimeType("", "talk.opus")).toBe("audio/ogg");
    // Accepted by media's list, once refused by the gateway's copy.
    expect(audioImportMimeType("audio/x-mpeg-3", "talk")).toBe("audio/mpeg");
    expect(audioImportMimeType("audio/x-hx-aac-adts", "talk")).toBe("audio/aac");
    expect(audioImportMimeType("audio/mp4a-latm", "talk")).toBe("audio/m4a");
  });

  it("is unknown without an extension (the worker checks the content)", () => {
    expect(audioImportMimeType(undefined, "stream")).toBeNull();
    expect(audioImportMimeType(undefined, ".hidden")).toBeNull();
    expect(audioImportMimeType(undefined, "trailing.")).toBeNull();
  });

  it("refuses a named format or an extension outside the spec's list with UNEXPECTED_FILE", async () => {
    const expected = "expected one of audio/mpeg, audio/wav, audio/m4a, audio/aac, audio/ogg, audio/flac, audio/webm, video/mp4";
    const byType = await appErrorOf(Promise.resolve().then(() => audioImportMimeType("text/plain", "lecture.mp3")));
    expect(byType).toMatchObject({
      kind: "validation",
      code: "UNEXPECTED_FILE",
      message: `Unsupported audio format text/plain: ${expected}`,
      details: [{ field: "file", message: `Unsupported audio format text/plain: ${expected}` }],
    });
    const byName = await appErrorOf(Promise.resolve().then(() => audioImportMimeType(undefined, "notes.txt")));
    expect(byName).toMatchObject({ code: "UNEXPECTED_FILE", message: `Unsupported audio file notes.txt: ${expected}` });
  });
});
