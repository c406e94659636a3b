import { createImport, MAX_AUDIO_FILE_SIZE, shortenFileName, supportedAudioMimeType, validateImportRequest } from "../../src/domain/import-request";
import { at } from "./fixtures";
import { refusal } from "@study/testkit/refusal";

const courseId = "0190f5c2-0000-7000-8000-000000000003";
const ids = { noteId: "0190f5c2-0000-7000-8000-0000000000a1", jobId: "0190f5c2-0000-7000-8000-0000000000b1" };

describe("an import request", () => {
  it("creates a PENDING note and a PENDING job together, with what is known in the note's metadata", () => {
    const { note, job } = createImport(
      ids,
      "alice",
      {
        type: "AUDIO_IMPORT",
        title: " Audio: lecture.mp3 ",
        courseId,
        sourceUrl: "https://cdn.example.com/lecture.mp3",
        mimeType: "audio/MP3; charset=x",
        speedMultiplier: 1,
      },
      at,
    );
    expect(note).toEqual({
      id: ids.noteId,
      userId: "alice",
      courseId,
      title: "Audio: lecture.mp3",
      content: null,
      summary: null,
      audioUrl: null,
      audioStorageKey: null,
      transcriptionStatus: "PENDING",
      metadata: { source: "audio_url", originalUrl: "https://cdn.example.com/lecture.mp3", mimeType: "audio/mpeg" },
      userNotes: [],
      createdAt: at,
      updatedAt: at,
    });
    expect(job).toMatchObject({
      id: ids.jobId,
      noteId: ids.noteId,
      userId: "alice",
      type: "AUDIO_IMPORT",
      source: "UPLOAD",
      title: "Audio: lecture.mp3",
      status: "PENDING",
      progress: 0,
      stage: null,
      attempts: 0,
      version: 0,
      speedMultiplier: 1,
      sourceUrl: "https://cdn.example.com/lecture.mp3",
      completedAt: null,
    });
  });

  it("keeps an upload's storage key as the note's audio and defaults the speed to 2", () => {
    const { note, job } = createImport(
      ids,
      "bob",
      {
        type: "AUDIO_UPLOAD",
        title: "Recording",
        courseId,
        storageKey: "uploads/bob/1.m4a",
        originalFilename: "1.m4a",
        fileSize: 2048,
        mimeType: "audio/x-m4a",
        audioUrl: "/api/files/1.m4a",
      },
      at,
    );
    expect(note).toMatchObject({
      audioStorageKey: "uploads/bob/1.m4a",
      audioUrl: "/api/files/1.m4a",
      metadata: { source: "upload", originalFilename: "1.m4a", fileSize: 2048, mimeType: "audio/m4a" },
    });
    expect(job).toMatchObject({ source: "UPLOAD", speedMultiplier: 2, storageKey: "uploads/bob/1.m4a", sourceUrl: null });
    expect(createImport(ids, "c", { type: "VIDEO_IMPORT", title: "V", courseId, sourceUrl: "http://video.example.com/v" }, at).job.source).toBe(
      "VIDEO",
    );
  });

  it("shortens an original file name over 255 characters, keeping its extension, instead of refusing the import", () => {
    // 300 code points (450 UTF-16 units): the name of a file or URL segment, not a choice of the user.
    const longName = `${"🎧".repeat(150)}${"a".repeat(150)}.flac`;
    const { note, job } = createImport(
      ids,
      "bob",
      { type: "AUDIO_UPLOAD", title: "Recording", courseId, storageKey: "uploads/bob/1.flac", originalFilename: longName },
      at,
    );
    const expected = `${"🎧".repeat(150)}${"a".repeat(100)}.flac`;
    expect(note.metadata.originalFilename).toBe(expected);
    expect(job.originalFilename).toBe(expected);
    expect([...expected]).toHaveLength(255);
  });

  it("reports every field problem at once", async () => {
    const refused = await refusal(() =>
      validateImportRequest({
        type: "VIDEO_IMPORT",
        title: " ",
        courseId: "",
        sourceUrl: "ftp://example.com/a",
        storageKey: "k",
        speedMultiplier: 3,
        mimeType: "text/plain",
        fileSize: -1,
      }),
    );
    expect(refused).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [
        { field: "title", message: "must not be empty" },
        { field: "courseId", message: "is required" },
        { field: "url", message: "must be a valid http(s) URL" },
        { field: "storageKey", message: "must not be set for a URL import" },
        { field: "speedMultiplier", message: "must be 1 or 2" },
        { field: "mimeType", message: expect.stringContaining("is not a supported audio format") },
        { field: "fileSize", message: "must be a number of bytes >= 0" },
      ],
    });
    expect(
      (await refusal(() => validateImportRequest({ type: "AUDIO_UPLOAD", title: "t", courseId, sourceUrl: "https://x.example" }))).details,
    ).toEqual([
      { field: "storageKey", message: "is required for an upload" },
      { field: "sourceUrl", message: "must not be set for an upload" },
    ]);
    expect((await refusal(() => validateImportRequest({ type: null, title: "t", courseId }))).details).toEqual([
      { field: "type", message: "must be one of video_import, audio_import, audio_upload" },
    ]);
    expect((await refusal(() => validateImportRequest({ type: "AUDIO_IMPORT", title: "t", courseId, sourceUrl: "not a url" }))).details).toEqual([
      { field: "url", message: "must be a valid http(s) URL" },
    ]);
  });

  it("refuses a file over 150 MB with FILE_TOO_LARGE", async () => {
    const draft = { type: "AUDIO_UPLOAD" as const, title: "t", courseId, storageKey: "k" };
    expect(validateImportRequest({ ...draft, fileSize: MAX_AUDIO_FILE_SIZE }).fileSize).toBe(MAX_AUDIO_FILE_SIZE);
    expect(await refusal(() => validateImportRequest({ ...draft, fileSize: MAX_AUDIO_FILE_SIZE + 1 }))).toMatchObject({
      kind: "too_large",
      code: "FILE_TOO_LARGE",
    });
  });

  it("knows the spec's audio formats under their common names", () => {
    for (const type of ["audio/mpeg", "audio/wav", "audio/m4a", "audio/aac", "audio/ogg", "audio/flac", "audio/webm", "video/mp4"]) {
      expect(supportedAudioMimeType(type)).toBe(type);
    }
    expect(supportedAudioMimeType("Audio/X-WAV")).toBe("audio/wav");
    expect(supportedAudioMimeType("audio/mp4")).toBe("audio/m4a");
    expect(supportedAudioMimeType("application/pdf")).toBeNull();
  });
});

describe("shortenFileName", () => {
  it("leaves names of at most 255 characters as they are", () => {
    expect(shortenFileName("lecture.mp3")).toBe("lecture.mp3");
    const exactly = `${"x".repeat(251)}.mp3`;
    expect(shortenFileName(exactly)).toBe(exactly);
  });

  it("counts and cuts by code points, never splitting a surrogate pair", () => {
    const shortened = shortenFileName("😀".repeat(300));
    expect(shortened).toBe("😀".repeat(255));
    expect(shortened).toHaveLength(510);
  });

  it("keeps a short extension and cuts the stem; a long or missing one is just text", () => {
    expect(shortenFileName(`${"n".repeat(300)}.webm`, 20)).toBe(`${"n".repeat(15)}.webm`);
    expect(shortenFileName(`${"n".repeat(300)}`, 20)).toBe("n".repeat(20));
    expect(shortenFileName(`notes.${"e".repeat(30)}`, 20)).toBe(`notes.${"e".repeat(14)}`);
    expect(shortenFileName(`.${"h".repeat(30)}`, 10)).toBe(`.${"h".repeat(9)}`);
  });
});
