import { indexing } from "@study/contracts";
import { fixedClock } from "@study/platform/clock";
import type { EventEnvelope } from "@study/events/envelope";
import { CancelJob } from "../../src/application/cancel-job";
import { CompleteJob } from "../../src/application/complete-job";
import { FailJob } from "../../src/application/fail-job";
import { GetJob } from "../../src/application/get-job";
import { GetNote } from "../../src/application/get-note";
import { ListSearchables } from "../../src/application/list-searchables";
import { noteImportStarted } from "../../src/application/media-events";
import type { ImportJobRepository, JobTransition, JobWithNote } from "../../src/application/ports/import-job-repository.port";
import type { Note } from "../../src/domain/note";
import { RenameNote } from "../../src/application/rename-note";
import { SEARCHABLE_TYPE_NOTE, toSearchable } from "../../src/application/searchable";
import { DEFAULT_SEARCHABLE_PAGE_SIZE } from "@study/platform/searchable-page";
import { UpdateUserNotes } from "../../src/application/update-user-notes";
import { aJob, aNote, at, later } from "./fixtures";
import { refusal } from "@study/testkit/refusal";

const transcribed = aNote("COMPLETED", {
  content: "Enzymes lower the activation energy.",
  summary: "Enzymes speed up reactions.",
  metadata: { source: "video", duration: 61.5, wordCount: 5, language: "en" },
  userNotes: [
    { timestamp: 3, content: "Key formula", contentType: "text" },
    { timestamp: 9, content: "https://example.com/slides", contentType: "url" },
  ],
  updatedAt: later,
});

const searchableOf = (event: EventEnvelope) => (event.payload?.value as { searchable?: indexing.Searchable }).searchable;

describe("a note as search indexes it", () => {
  it("is of the contract's NOTE type", () => {
    expect(SEARCHABLE_TYPE_NOTE).toBe(indexing.SearchableType.SEARCHABLE_TYPE_NOTE);
  });

  it("has the title, the summary as description, the transcript then the user notes as content", () => {
    expect(toSearchable(transcribed)).toEqual({
      type: indexing.SearchableType.SEARCHABLE_TYPE_NOTE,
      id: transcribed.id,
      userId: "alice",
      courseId: transcribed.courseId,
      title: "Lecture 1",
      keywords: [],
      description: "Enzymes speed up reactions.",
      content: "Enzymes lower the activation energy.\nKey formula\nhttps://example.com/slides",
      status: "COMPLETED",
      metadata: { transcriptionStatus: "COMPLETED", duration: "61.5", sourceType: "video" },
      createdAt: at,
      updatedAt: later,
    });
  });

  it("is PROCESSING until the import finished, FAILED when it failed; without a transcript, the user notes alone", () => {
    const pending = aNote("PENDING", { metadata: {}, userNotes: [{ timestamp: 1, content: "Read chapter 2", contentType: "text" }] });
    expect(toSearchable(pending)).toMatchObject({
      status: "PROCESSING",
      description: "",
      content: "Read chapter 2",
      metadata: { transcriptionStatus: "PENDING" },
    });
    expect(toSearchable(aNote("PROCESSING"))).toMatchObject({
      status: "PROCESSING",
      content: "",
      metadata: { transcriptionStatus: "PROCESSING", sourceType: "video" },
    });
    expect(toSearchable(aNote("FAILED"))).toMatchObject({ status: "FAILED" });
  });

  it("survives the wire unchanged", () => {
    const searchable = toSearchable(transcribed);
    expect(indexing.Searchable.decode(indexing.Searchable.encode(searchable).finish())).toEqual(searchable);
  });

  it("travels in NoteImportStarted", () => {
    const note = aNote("PENDING");
    expect(searchableOf(noteImportStarted(note, aJob()))).toEqual(toSearchable(note));
  });
});

describe("the note's events carry it as stored after the change", () => {
  const getNote = (note: Note) => new GetNote({ findOwned: async () => note, findOwnedDetails: async () => null });

  /** saveEdits over a note the pipeline completed after the use case read it. */
  function editedMeanwhile() {
    const written: { edit: Note; events: EventEnvelope[] }[] = [];
    return {
      written,
      notes: {
        async saveEdits(edit: Note, events: (saved: Note) => EventEnvelope[]) {
          const saved: Note = { ...transcribed, title: edit.title, userNotes: edit.userNotes, updatedAt: new Date(later.getTime() + 1) };
          written.push({ edit, events: events(saved) });
          return saved;
        },
      },
    };
  }

  it("RenameNote: NoteUpdated with the new title and a later version", async () => {
    const read = aNote("PROCESSING");
    const { notes, written } = editedMeanwhile();
    const renamed = await new RenameNote(notes, getNote(read)).execute("alice", read.id, " Enzymes ");
    expect(written[0].edit).toMatchObject({ title: "Enzymes" });
    expect(written[0].edit.updatedAt.getTime()).toBeGreaterThan(read.updatedAt.getTime());
    expect(written[0].events).toHaveLength(1);
    expect(written[0].events[0].type).toBe("media.note.updated.v1");
    expect(searchableOf(written[0].events[0])).toEqual(toSearchable(renamed));
    expect(searchableOf(written[0].events[0])).toMatchObject({
      title: "Enzymes",
      status: "COMPLETED",
      content: expect.stringContaining("Enzymes lower"),
    });
  });

  it("UpdateUserNotes: NoteUpdated with the new user notes in the content", async () => {
    const read = aNote("COMPLETED", { updatedAt: at });
    const { notes, written } = editedMeanwhile();
    await new UpdateUserNotes(notes, getNote(read)).execute("alice", read.id, [{ timestamp: 2, content: "New thought", contentType: "text" }]);
    expect(searchableOf(written[0].events[0])).toMatchObject({ content: "Enzymes lower the activation energy.\nNew thought" });
  });

  it("RenameNote: NOT_FOUND when the note went meanwhile", async () => {
    const read = aNote("PENDING");
    const gone = { saveEdits: async () => null };
    expect(await refusal(() => new RenameNote(gone, getNote(read)).execute("alice", read.id, "x"))).toMatchObject({ kind: "not_found" });
  });

  /** One job and its note; `saveTransition` calls noteEvents with the note as a concurrent rename left it. */
  function transitions(initial: JobWithNote) {
    const current = initial;
    const events: EventEnvelope[] = [];
    const saved: JobTransition[] = [];
    const store: Pick<ImportJobRepository, "findWithNote" | "saveTransition" | "findOwned"> = {
      findWithNote: async () => current,
      async saveTransition(transition: JobTransition) {
        saved.push(transition);
        events.push(...transition.events);
        if (transition.note) events.push(...(transition.noteEvents?.({ ...transition.note, title: "Renamed meanwhile" }) ?? []));
        return true;
      },
      findOwned: async () => ({ job: current.job, note: null }),
    };
    return { store, events, saved };
  }
  const clock = fixedClock("2026-03-01T12:10:00.000Z");

  it("CompleteJob: NoteTranscribed with the transcript, the summary and the title as stored", async () => {
    const { store, events, saved } = transitions({ job: aJob("IN_PROGRESS", { attempts: 1 }), note: aNote("PROCESSING") });
    await new CompleteJob(store, clock).execute(aJob().id, {
      transcript: "Cells divide.",
      summary: "Mitosis.",
      segments: [],
      duration: 2,
      language: "en",
    });
    expect(saved[0].events).toEqual([]);
    expect(events.map((event) => event.type)).toEqual(["media.note.transcribed.v1"]);
    expect(searchableOf(events[0])).toMatchObject({
      title: "Renamed meanwhile",
      description: "Mitosis.",
      content: "Cells divide.",
      status: "COMPLETED",
      metadata: { transcriptionStatus: "COMPLETED", duration: "2", sourceType: "video" },
      updatedAt: clock.now(),
    });
  });

  it("FailJob and CancelJob: the note FAILED (NoteImportFailed, NoteUpdated for a cancellation)", async () => {
    const failing = transitions({ job: aJob("IN_PROGRESS", { attempts: 1 }), note: aNote("PROCESSING") });
    await new FailJob(failing.store, clock).execute(aJob().id, "Private video");
    expect(failing.events.map((event) => [event.type, searchableOf(event)?.status])).toEqual([["media.note.import_failed.v1", "FAILED"]]);

    const cancelling = transitions({ job: aJob("PENDING"), note: aNote("PENDING") });
    const { store } = cancelling;
    await new CancelJob(store, new GetJob(store), clock).execute("alice", aJob().id);
    expect(cancelling.events.map((event) => [event.type, searchableOf(event)?.status, searchableOf(event)?.metadata.transcriptionStatus])).toEqual([
      ["media.note.updated.v1", "FAILED", "FAILED"],
    ]);

    // A job whose note is gone announces nothing about it.
    const orphan = transitions({ job: aJob("IN_PROGRESS", { attempts: 1, noteId: null }), note: null });
    await new FailJob(orphan.store, clock).execute(aJob().id, "Gone");
    expect(orphan.events).toEqual([]);
  });
});

describe("ListSearchables", () => {
  const ids = Array.from({ length: 5 }, (_, index) => `0190f5c2-0000-7000-8000-00000000010${index}`);
  const notes = ids.map((id, index) => aNote("PENDING", { id, userId: index % 2 === 0 ? "alice" : "bob", title: `Note ${index}` }));
  const repository = {
    async listPageAfter(query: { userId?: string; afterId: string | null; limit: number }) {
      return notes
        .filter((note) => (query.userId === undefined || note.userId === query.userId) && (query.afterId === null || note.id > query.afterId))
        .slice(0, query.limit);
    },
  };
  const list = (query: { userId?: string; pageToken?: string; pageSize?: number }) =>
    new ListSearchables(repository).execute({ pageToken: "", pageSize: 0, ...query });

  it("pages in id order, one user's or everyone's, the last page without a token", async () => {
    const first = await list({ pageSize: 2 });
    expect(first.searchables.map((s) => s.title)).toEqual(["Note 0", "Note 1"]);
    const second = await list({ pageSize: 2, pageToken: first.nextPageToken });
    expect(second.searchables.map((s) => s.title)).toEqual(["Note 2", "Note 3"]);
    const third = await list({ pageSize: 2, pageToken: second.nextPageToken });
    expect(third).toEqual({ searchables: [expect.objectContaining({ title: "Note 4" })], nextPageToken: "" });
    expect((await list({ userId: "bob" })).searchables.map((s) => s.title)).toEqual(["Note 1", "Note 3"]);
  });

  it(`reads ${DEFAULT_SEARCHABLE_PAGE_SIZE} per page by default and refuses a bad size or token`, async () => {
    const spy = jest.spyOn(repository, "listPageAfter");
    await list({});
    expect(spy).toHaveBeenCalledWith({ userId: undefined, afterId: null, limit: DEFAULT_SEARCHABLE_PAGE_SIZE + 1 });
    expect(await refusal(() => list({ pageSize: 1001 }))).toMatchObject({ kind: "validation", details: [{ field: "pageSize" }] });
    expect(await refusal(() => list({ pageToken: "x" }))).toMatchObject({ kind: "validation", details: [{ field: "pageToken" }] });
  });
});
