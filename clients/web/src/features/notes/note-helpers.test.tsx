import { render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { describe, expect, it, vi } from "vitest";
import { ImportList } from "./import-items";
import type { ImportItem } from "./import-queue";
import { audioSourceOf, startSecondOf } from "./note-page";
import { segmentAt } from "./transcript";
import { fileNameOf } from "./user-notes";

describe("segmentAt", () => {
  const segments = [0, 2.5, 6, 6, 11].map((startTime) => ({ startTime }));

  it("finds the segment that started last at or before the second", () => {
    expect(segmentAt(segments, 0)).toBe(0);
    expect(segmentAt(segments, 2.4)).toBe(0);
    expect(segmentAt(segments, 2.5)).toBe(1);
    expect(segmentAt(segments, 7)).toBe(3);
    expect(segmentAt(segments, 3600)).toBe(4);
  });

  it("is -1 before the first segment and for no segments", () => {
    expect(segmentAt([{ startTime: 1 }], 0.5)).toBe(-1);
    expect(segmentAt([], 10)).toBe(-1);
  });

  it("stays fast for a one-hour lecture", () => {
    const lecture = Array.from({ length: 5000 }, (_, index) => ({ startTime: index * 0.72 }));
    expect(segmentAt(lecture, 1800)).toBe(2500);
  });
});

describe("audioSourceOf", () => {
  const origin = "http://127.0.0.1:3000";
  it("plays the stored file on the API's origin", () => {
    expect(audioSourceOf({ audioUrl: "/api/files/uploads/audio/a.mp3", metadata: {} }, origin)).toBe("/api/files/uploads/audio/a.mp3");
    expect(audioSourceOf({ audioUrl: `${origin}/api/files/x.wav`, metadata: {} }, origin)).toBe("/api/files/x.wav");
  });
  it("plays nothing from another origin (the page's Content-Security-Policy would refuse it)", () => {
    expect(audioSourceOf({ audioUrl: "https://cdn.example.com/a.mp3", metadata: {} }, origin)).toBeNull();
    expect(audioSourceOf({ audioUrl: null, metadata: { source: "video", originalUrl: "https://video.example.com/watch" } }, origin)).toBeNull();
  });
});

describe("startSecondOf", () => {
  it("reads ?t= as seconds, and ignores what is not a second", () => {
    expect(startSecondOf(new URLSearchParams("t=724"))).toBe(724);
    expect(startSecondOf(new URLSearchParams("t=12.5"))).toBe(12.5);
    expect(startSecondOf(new URLSearchParams(""))).toBeNull();
    expect(startSecondOf(new URLSearchParams("t=-3"))).toBeNull();
    expect(startSecondOf(new URLSearchParams("t=soon"))).toBeNull();
  });
});

describe("fileNameOf", () => {
  it("shows an attachment's file name", () => {
    expect(fileNameOf("/api/files/attachments/u1/abc/lecture%20slides.pdf")).toBe("lecture slides.pdf");
    expect(fileNameOf("/api/files/a/%E0%A4%A.txt")).toBe("%E0%A4%A.txt");
  });
});

describe("ImportList", () => {
  const actions = { onCancel: vi.fn(), onRetryFollowing: vi.fn(), onDismiss: vi.fn() };

  it("shows an upload's labelled progress, a running job's stages and a failure's message", () => {
    const items: ImportItem[] = [
      { key: "a", kind: "upload", label: "week-1.mp3", phase: "uploading", upload: { loaded: 512 * 1024, total: 1024 * 1024 } },
      {
        key: "b",
        kind: "audio",
        label: "https://example.com/b.mp3",
        phase: "importing",
        noteTitle: "Week 2",
        job: { id: "j", status: "IN_PROGRESS", progress: 40, stage: "TRANSCRIPTION", errorMessage: null },
      },
      {
        key: "c",
        kind: "video",
        label: "https://video.example.com/c",
        phase: "failed",
        job: { id: "k", status: "FAILED", progress: 10, stage: "SETUP", errorMessage: "Download failed: not found" },
      },
    ];
    render(
      <MemoryRouter>
        <ImportList items={items} {...actions} />
      </MemoryRouter>,
    );
    expect(screen.getByRole("progressbar", { name: "Uploading week-1.mp3" }).getAttribute("aria-valuenow")).toBe("50");
    expect(screen.getByRole("progressbar", { name: "Import progress" }).getAttribute("aria-valuenow")).toBe("40");
    expect(screen.getByText("Transcribing… 40 %")).toBeTruthy();
    expect(screen.getByRole("alert").textContent).toBe("Download failed: not found");
    expect(screen.getByRole("button", { name: "Cancel upload" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Cancel import" })).toBeTruthy();
  });
});
