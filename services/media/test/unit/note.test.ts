import {
  attachmentFileOf,
  audioFileOf,
  canMoveTranscription,
  completeTranscription,
  countWords,
  moveTranscription,
  normaliseTitle,
  renameNote,
  replaceUserNotes,
  storageKeysOf,
  TRANSCRIPTION_STATUSES,
  validateUserNotes,
  type TranscriptionStatus,
} from "../../src/domain/note";
import { aNote, later } from "./fixtures";
import { refusal } from "@study/testkit/refusal";

describe("user notes", () => {
  it("are stored trimmed and sorted by timestamp; equal timestamps keep their order", () => {
    expect(
      validateUserNotes([
        { timestamp: 120.5, content: " Exam hint ", contentType: "text" },
        { timestamp: 0, content: "https://example.com/slides.pdf", contentType: "url" },
        { timestamp: 60, content: "first at 60", contentType: "text" },
        { timestamp: 60, content: "https://files.example.com/a.png", contentType: "file" },
      ]),
    ).toEqual([
      { timestamp: 0, content: "https://example.com/slides.pdf", contentType: "url" },
      { timestamp: 60, content: "first at 60", contentType: "text" },
      { timestamp: 60, content: "https://files.example.com/a.png", contentType: "file" },
      { timestamp: 120.5, content: "Exam hint", contentType: "text" },
    ]);
    expect(validateUserNotes([])).toEqual([]);
  });

  it("name every problem by its entry: timestamp >= 0, content 1-1000 characters, contentType text|url|file", async () => {
    const refused = await refusal(() =>
      validateUserNotes([
        { timestamp: 1, content: "fine", contentType: "text" },
        { timestamp: -1, content: "before the start", contentType: "text" },
        { timestamp: 2, content: "   ", contentType: "text" },
        { timestamp: 3, content: "x".repeat(1001), contentType: "url" },
        { timestamp: Number.NaN, content: "ok", contentType: null },
      ]),
    );
    expect(refused).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [
        { field: "userNotes.1.timestamp", message: "must be a number of seconds >= 0" },
        { field: "userNotes.2.content", message: "must not be empty" },
        { field: "userNotes.3.content", message: "must be at most 1000 characters" },
        { field: "userNotes.4.timestamp", message: "must be a number of seconds >= 0" },
        { field: "userNotes.4.contentType", message: "must be one of text, url, file" },
      ],
    });
  });

  it("count characters, not UTF-16 units: 1000 emoji fit", () => {
    const content = "📝".repeat(1000);
    expect(validateUserNotes([{ timestamp: 0, content, contentType: "text" }])[0].content).toBe(content);
  });

  it("allow at most 1000 entries", async () => {
    const many = Array.from({ length: 1001 }, (_, i) => ({ timestamp: i, content: "n", contentType: "text" as const }));
    expect((await refusal(() => validateUserNotes(many))).details).toEqual([{ field: "userNotes", message: "must have at most 1000 entries" }]);
  });

  it("replace the note's list and touch updatedAt", () => {
    const note = aNote("COMPLETED", { userNotes: [{ timestamp: 1, content: "old", contentType: "text" }] });
    expect(replaceUserNotes(note, [{ timestamp: 5, content: "new", contentType: "text" }], later)).toMatchObject({
      userNotes: [{ timestamp: 5, content: "new", contentType: "text" }],
      updatedAt: later,
    });
  });
});

describe("note titles", () => {
  it("are trimmed and 1-255 characters", async () => {
    expect(normaliseTitle("  Lecture 7  ")).toBe("Lecture 7");
    expect(normaliseTitle("x".repeat(255))).toHaveLength(255);
    expect((await refusal(() => normaliseTitle("  "))).details).toEqual([{ field: "title", message: "must not be empty" }]);
    expect((await refusal(() => normaliseTitle("x".repeat(256)))).details).toEqual([{ field: "title", message: "must be at most 255 characters" }]);
    expect(renameNote(aNote(), " Renamed ", later)).toMatchObject({ title: "Renamed", updatedAt: later });
  });
});

describe("the transcription status", () => {
  const allowed: [TranscriptionStatus, TranscriptionStatus][] = [
    ["PENDING", "PROCESSING"],
    ["PENDING", "FAILED"],
    ["PROCESSING", "PROCESSING"],
    ["PROCESSING", "COMPLETED"],
    ["PROCESSING", "FAILED"],
    // Its failed or cancelled import retried.
    ["FAILED", "PENDING"],
  ];

  it.each(TRANSCRIPTION_STATUSES.flatMap((from) => TRANSCRIPTION_STATUSES.map((to) => [from, to] as const)))(
    "%s → %s is allowed only when listed",
    async (from, to) => {
      const isAllowed = allowed.some(([a, b]) => a === from && b === to);
      expect(canMoveTranscription(from, to)).toBe(isAllowed);
      if (isAllowed) expect(moveTranscription(aNote(from), to, later)).toMatchObject({ transcriptionStatus: to, updatedAt: later });
      else
        expect(await refusal(() => moveTranscription(aNote(from), to, later))).toMatchObject({
          kind: "precondition",
          code: "INVALID_NOTE_TRANSITION",
        });
    },
  );
});

describe("a completed transcription", () => {
  const result = {
    transcript: "Enzymes lower the activation energy.  They are proteins.",
    summary: "Enzymes are proteins that speed up reactions.",
    segments: [
      { text: "Enzymes lower the activation energy.", startTime: 0, endTime: 3.2 },
      { text: "They are proteins.", startTime: 3.2, endTime: 5, speaker: "Speaker 1" },
    ],
    duration: 5,
    language: "en",
    confidence: 0.87,
  };

  it("fills content, summary and metadata (word count, duration, language, confidence), keeping what was known", () => {
    const note = completeTranscription(
      aNote("PROCESSING", { metadata: { source: "upload", fileSize: 1234, mimeType: "audio/mpeg" } }),
      result,
      later,
    );
    expect(note).toMatchObject({
      transcriptionStatus: "COMPLETED",
      content: result.transcript,
      summary: result.summary,
      updatedAt: later,
      metadata: { source: "upload", fileSize: 1234, mimeType: "audio/mpeg", duration: 5, wordCount: 8, language: "en", confidence: 0.87 },
    });
    expect(countWords("  one two\nthree ")).toBe(3);
  });

  it("omits the confidence from the metadata when the transcriber gave none", () => {
    const { confidence: _none, ...unscored } = result;
    const note = completeTranscription(aNote("PROCESSING", { metadata: { source: "upload" } }), unscored, later);
    expect(note.metadata).toEqual({ source: "upload", duration: 5, wordCount: 8, language: "en" });
    expect("confidence" in note.metadata).toBe(false);
  });

  it("takes the audio location and file facts the pipeline learned", () => {
    const note = completeTranscription(
      aNote("PROCESSING"),
      { ...result, audioUrl: "/api/files/a.mp3", audioStorageKey: "audio/a.mp3", mimeType: "audio/wav", fileSize: 99 },
      later,
    );
    expect(note).toMatchObject({ audioUrl: "/api/files/a.mp3", audioStorageKey: "audio/a.mp3", metadata: { mimeType: "audio/wav", fileSize: 99 } });
  });

  it("refuses segments off the timeline, a confidence outside 0-1, and a note that is not processing", async () => {
    const refused = await refusal(() =>
      completeTranscription(aNote("PROCESSING"), { ...result, confidence: 1.5, segments: [{ text: "x", startTime: 4, endTime: 2 }] }, later),
    );
    expect(refused.details).toEqual([
      { field: "segments.0", message: "must satisfy 0 <= startTime <= endTime" },
      { field: "confidence", message: "must be between 0 and 1" },
    ]);
    expect(await refusal(() => completeTranscription(aNote("PENDING"), result, later))).toMatchObject({ code: "INVALID_NOTE_TRANSITION" });
  });

  it("accepts a segment confidence anywhere in 0-1, ends included, or none", () => {
    const scored = [0, 1, undefined].map((confidence, index) => ({ text: `Part ${index}.`, startTime: index, endTime: index + 1, confidence }));
    expect(completeTranscription(aNote("PROCESSING"), { ...result, segments: scored }, later).transcriptionStatus).toBe("COMPLETED");
  });

  it("refuses a segment confidence outside 0-1, naming the segment", async () => {
    const segments = [
      { text: "Heard well.", startTime: 0, endTime: 1, confidence: 0.9 },
      { text: "Too sure.", startTime: 1, endTime: 2, confidence: 1.2 },
      { text: "Below nothing.", startTime: 2, endTime: 3, confidence: -0.1 },
      { text: "No number.", startTime: 3, endTime: 4, confidence: Number.NaN },
    ];
    const refused = await refusal(() => completeTranscription(aNote("PROCESSING"), { ...result, segments }, later));
    expect(refused).toMatchObject({ kind: "validation", code: "VALIDATION_ERROR" });
    expect(refused.details).toEqual([
      { field: "segments.1.confidence", message: "must be between 0 and 1" },
      { field: "segments.2.confidence", message: "must be between 0 and 1" },
      { field: "segments.3.confidence", message: "must be between 0 and 1" },
    ]);
  });
});

describe("storage keys of a note", () => {
  it("lists the audio, every attachment and extra keys once each", () => {
    expect(storageKeysOf({ audioStorageKey: "audio/1" }, [{ storageKey: "att/1" }, { storageKey: "att/2" }], ["audio/1", null])).toEqual([
      "audio/1",
      "att/1",
      "att/2",
    ]);
    expect(storageKeysOf({ audioStorageKey: null }, [])).toEqual([]);
  });
});

describe("the downloadable files of a note", () => {
  it("are its stored audio, named and typed as uploaded, played in place", () => {
    const note = aNote("COMPLETED", {
      audioStorageKey: "uploads/audio/alice/1/talk.mp3",
      metadata: { source: "upload", originalFilename: "Talk 1.mp3", mimeType: "audio/mpeg" },
    });
    expect(audioFileOf(note)).toEqual({
      storageKey: "uploads/audio/alice/1/talk.mp3",
      role: "audio",
      fileName: "Talk 1.mp3",
      mimeType: "audio/mpeg",
    });
    // Without the upload's metadata: the title and a generic type.
    expect(audioFileOf({ ...note, metadata: {} })).toMatchObject({ fileName: "Lecture 1", mimeType: "application/octet-stream" });
  });

  it("exclude a note without stored audio (imports by URL or video keep none)", () => {
    expect(audioFileOf(aNote("COMPLETED"))).toBeNull();
  });

  it("are its attachments, saved under their original names", () => {
    expect(attachmentFileOf({ storageKey: "uploads/attachments/alice/2/slide.png", fileName: "Slide 3.png", mimeType: "image/png" })).toEqual({
      storageKey: "uploads/attachments/alice/2/slide.png",
      role: "attachment",
      fileName: "Slide 3.png",
      mimeType: "image/png",
    });
  });
});
