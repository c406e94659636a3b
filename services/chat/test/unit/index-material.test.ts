import { fixedClock } from "@study/platform/clock";
import { ForgetCourse, ForgetSource, IndexDocument, IndexNote } from "../../src/application/index-material";
import type {
  CurrentDocument,
  CurrentNote,
  DocumentSource,
  DocumentText,
  IndexedSource,
  ListedSource,
  NoteSource,
  PassageOwner,
  PassageStore,
  SourceCatalogue,
} from "../../src/application/ports/material-sources.port";
import { REMOVAL_MARGIN_MS, ReindexPassages, type ReindexProgress } from "../../src/application/reindex-passages";
import type { SourceType } from "../../src/domain/passage";
import type { PassageDraft } from "../../src/domain/passage-builder";

type StoredPassage = PassageDraft & PassageOwner & { indexedAt: Date };

const clock = fixedClock("2026-11-25T01:00:00Z");

/** The store's contract as PrismaPassageStore keeps it (versions and tombstones included; its own test checks it). */
class InMemoryPassageStore implements PassageStore {
  rows: StoredPassage[] = [];
  sessions: { userId: string; courseId: string }[] = [];
  applied = new Map<string, { version: Date | null; forgotten: boolean }>();
  async replaceSourcePassages(owner: PassageOwner, sourceType: SourceType, sourceId: string, drafts: readonly PassageDraft[], version: Date | null) {
    const key = `${sourceType}:${sourceId}`;
    const applied = this.applied.get(key);
    if (applied?.forgotten || (applied?.version && version && version < applied.version)) return false;
    this.applied.set(key, { version, forgotten: false });
    this.drop(sourceType, sourceId);
    this.rows.push(...drafts.map((draft) => ({ ...draft, ...owner, indexedAt: clock.now() })));
    return true;
  }
  async deleteSource(sourceType: SourceType, sourceId: string) {
    this.applied.set(`${sourceType}:${sourceId}`, { version: null, forgotten: true });
    return this.drop(sourceType, sourceId);
  }
  private drop(sourceType: SourceType, sourceId: string) {
    const before = this.rows.length;
    this.rows = this.rows.filter((row) => !(row.sourceType === sourceType && row.sourceId === sourceId));
    return before - this.rows.length;
  }
  async deleteCourse(userId: string, courseId: string) {
    const mine = (row: { userId: string; courseId: string }) => row.userId === userId && row.courseId === courseId;
    const passages = this.rows.filter(mine).length;
    const sessions = this.sessions.filter(mine).length;
    this.rows = this.rows.filter((row) => !mine(row));
    this.sessions = this.sessions.filter((row) => !mine(row));
    return { passages, sessions };
  }
  async sourcesIndexedBefore(query: { userId?: string; before: Date }): Promise<IndexedSource[]> {
    const keys = new Set(
      this.rows
        .filter((row) => (query.userId === undefined || row.userId === query.userId) && row.indexedAt < query.before)
        .map((row) => JSON.stringify([row.sourceType, row.sourceId])),
    );
    return [...keys].map((key) => {
      const [sourceType, sourceId] = JSON.parse(key) as [SourceType, string];
      return { sourceType, sourceId };
    });
  }
  of(sourceId: string) {
    return this.rows.filter((row) => row.sourceId === sourceId);
  }
}

/** The owners' current state, per user: what GetNote / GetDocumentText answer now. */
class FakeOwners implements NoteSource, DocumentSource {
  notes = new Map<string, CurrentNote & { userId: string }>();
  documents = new Map<string, CurrentDocument & { userId: string; processed?: boolean }>();
  async getNote(userId: string, noteId: string) {
    const note = this.notes.get(noteId);
    return note && note.userId === userId ? note : null;
  }
  async getDocumentText(userId: string, documentId: string): Promise<DocumentText> {
    const document = this.documents.get(documentId);
    if (!document || document.userId !== userId) return { gone: true };
    return document.processed === false ? { noText: true } : { found: document };
  }
}

const note = (userId: string, noteId: string, extra: Partial<CurrentNote> = {}): CurrentNote & { userId: string } => ({
  userId,
  noteId,
  courseId: "micro",
  title: "Lecture 2",
  segments: [{ start: 754, text: "Under ideal conditions E. coli divides every twenty minutes, which is why cultures grow so fast." }],
  summary: "Bacterial growth.",
  userNotes: [{ content: "Ask about the lag phase." }],
  content: null,
  updatedAt: new Date("2026-11-25T00:00:00Z"),
  ...extra,
});

const document = (userId: string, documentId: string): CurrentDocument & { userId: string } => ({
  userId,
  documentId,
  courseId: "micro",
  title: "Lab handout",
  pages: [
    { number: 1, text: "Wear gloves." },
    { number: 4, text: "Autoclave used plates at 121 °C for 20 minutes." },
  ],
});

describe("indexing the user's notes and documents into passages", () => {
  let owners: FakeOwners;
  let store: InMemoryPassageStore;
  let indexNote: IndexNote;
  let indexDocument: IndexDocument;

  beforeEach(() => {
    owners = new FakeOwners();
    store = new InMemoryPassageStore();
    indexNote = new IndexNote(owners, store);
    indexDocument = new IndexDocument(owners, store);
  });

  it("indexes a note's current state in its course, and replaces it (not adds to it) when indexed again", async () => {
    owners.notes.set("n1", note("ada", "n1"));
    expect(await indexNote.execute("ada", "n1")).toBe(3);
    expect(store.of("n1").map(({ kind, startTime, userId, courseId }) => ({ kind, startTime, userId, courseId }))).toEqual([
      { kind: "segment", startTime: 754, userId: "ada", courseId: "micro" },
      { kind: "summary", startTime: null, userId: "ada", courseId: "micro" },
      { kind: "user_note", startTime: null, userId: "ada", courseId: "micro" },
    ]);
    owners.notes.set("n1", note("ada", "n1", { title: "Growth", userNotes: [] }));
    expect(await indexNote.execute("ada", "n1")).toBe(2);
    expect(store.of("n1").map((row) => row.title)).toEqual(["Growth", "Growth"]);
  });

  it("writes nothing for a note with no text yet, and drops a note that is gone even if an old event comes late", async () => {
    owners.notes.set("n2", note("ada", "n2", { segments: [], summary: null, userNotes: [], content: null }));
    expect(await indexNote.execute("ada", "n2")).toBe(0);
    expect(store.rows).toEqual([]);

    owners.notes.set("n1", note("ada", "n1"));
    await indexNote.execute("ada", "n1");
    owners.notes.delete("n1");
    await new ForgetSource(store).execute("note", "n1");
    // A redelivered transcribed event after the delete: the note's current state (gone) wins.
    expect(await indexNote.execute("ada", "n1")).toBe(0);
    expect(store.of("n1")).toEqual([]);
  });

  it("never indexes another user's note under the event's user: the owner answers it is not found", async () => {
    owners.notes.set("n1", note("bob", "n1"));
    expect(await indexNote.execute("ada", "n1")).toBe(0);
    expect(store.rows).toEqual([]);
  });

  it("indexes a document's pages once it has text, and drops them once it is gone", async () => {
    owners.documents.set("d1", { ...document("ada", "d1"), processed: false });
    expect(await indexDocument.execute("ada", "d1")).toBe(0);
    owners.documents.set("d1", document("ada", "d1"));
    expect(await indexDocument.execute("ada", "d1")).toBe(2);
    expect(store.of("d1").map((row) => row.page)).toEqual([1, 4]);
    owners.documents.delete("d1");
    expect(await indexDocument.execute("ada", "d1")).toBe(0);
    expect(store.rows).toEqual([]);
  });

  it("keeps the newer state when two reads of one note finish out of order, and a deleted note stays deleted", async () => {
    const older = note("ada", "n1", { title: "Old title", updatedAt: new Date("2026-11-25T00:00:00Z") });
    const newer = note("ada", "n1", { title: "New title", updatedAt: new Date("2026-11-25T00:00:05Z") });
    // The read that saw the newer state commits first; the one that saw the older state commits after it.
    owners.notes.set("n1", newer);
    await indexNote.execute("ada", "n1");
    owners.notes.set("n1", older);
    expect(await indexNote.execute("ada", "n1")).toBe(0);
    expect(new Set(store.of("n1").map((row) => row.title))).toEqual(new Set(["New title"]));
    // A read that raced the note's deletion writes nothing after the delete.
    await new ForgetSource(store).execute("note", "n1");
    owners.notes.set("n1", newer);
    expect(await indexNote.execute("ada", "n1")).toBe(0);
    expect(store.of("n1")).toEqual([]);
  });

  it("forgets a deleted course's passages and chat sessions of that user only", async () => {
    owners.notes.set("n1", note("ada", "n1"));
    owners.notes.set("n2", note("ada", "n2", { courseId: "history" }));
    owners.notes.set("n3", note("bob", "n3"));
    for (const [userId, noteId] of [
      ["ada", "n1"],
      ["ada", "n2"],
      ["bob", "n3"],
    ])
      await indexNote.execute(userId, noteId);
    store.sessions.push({ userId: "ada", courseId: "micro" }, { userId: "bob", courseId: "micro" });
    expect(await new ForgetCourse(store).execute("ada", "micro")).toEqual({ passages: 3, sessions: 1 });
    expect([...new Set(store.rows.map((row) => row.sourceId))].sort()).toEqual(["n2", "n3"]);
    expect(store.sessions).toEqual([{ userId: "bob", courseId: "micro" }]);
  });
});

/** The owners' listings, paged by offset. */
class FakeCatalogue implements SourceCatalogue {
  requests: { sourceType: SourceType; userId?: string }[] = [];
  constructor(private readonly sources: ListedSource[]) {}
  async list(sourceType: SourceType, query: { userId?: string; pageToken?: string; pageSize: number }) {
    this.requests.push({ sourceType, userId: query.userId });
    const all = this.sources.filter((s) => s.sourceType === sourceType && (query.userId === undefined || s.userId === query.userId));
    const start = Number(query.pageToken ?? "0");
    const end = start + query.pageSize;
    return { sources: all.slice(start, end), nextPageToken: end < all.length ? String(end) : undefined };
  }
}

describe("the reindex", () => {
  it("indexes every listed note and document page by page, and drops the passages of sources no longer listed", async () => {
    const owners = new FakeOwners();
    const store = new InMemoryPassageStore();
    owners.notes.set("n1", note("ada", "n1"));
    owners.notes.set("n2", note("ada", "n2", { segments: [], summary: null, userNotes: [] }));
    owners.notes.set("n3", note("bob", "n3"));
    owners.documents.set("d1", document("ada", "d1"));
    const indexNote = new IndexNote(owners, store);
    // Passages of a note deleted while its delete event was lost, written long ago.
    owners.notes.set("gone", note("ada", "gone"));
    await indexNote.execute("ada", "gone");
    owners.notes.delete("gone");
    // And of one indexed from an event just before the reindex: kept, its listing may simply not show it yet.
    owners.notes.set("fresh", note("ada", "fresh"));
    clock.advance(REMOVAL_MARGIN_MS + 1);
    await indexNote.execute("ada", "fresh");

    const catalogue = new FakeCatalogue([
      { sourceType: "note", sourceId: "n1", userId: "ada" },
      { sourceType: "note", sourceId: "n2", userId: "ada" },
      { sourceType: "note", sourceId: "n3", userId: "bob" },
      { sourceType: "document", sourceId: "d1", userId: "ada" },
    ]);
    const progress: ReindexProgress[] = [];
    const reindex = new ReindexPassages(catalogue, indexNote, new IndexDocument(owners, store), store, clock, 1);
    const report = await reindex.execute({ userId: "ada" }, (line) => progress.push(line));

    expect(catalogue.requests.every((request) => request.userId === "ada")).toBe(true);
    expect(progress.map(({ sourceType, listed, passages, empty, done }) => ({ sourceType, listed, passages, empty, done }))).toEqual([
      { sourceType: "note", listed: 1, passages: 3, empty: 0, done: false },
      { sourceType: "note", listed: 2, passages: 3, empty: 1, done: true },
      { sourceType: "document", listed: 1, passages: 2, empty: 0, done: true },
    ]);
    expect(report).toMatchObject({ listed: 3, passages: 5, empty: 1, removed: 1 });
    expect([...new Set(store.rows.map((row) => row.sourceId))].sort()).toEqual(["d1", "fresh", "n1"]);
  });
});
