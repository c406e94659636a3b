import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { strFromU8, unzipSync } from "fflate";
import initSqlJs, { type Database } from "sql.js";
import type { ExportableDeck } from "../../../src/application/ports/flashcard-exporter.port";
import { NOTE_TYPE_ID, NOTE_TYPE_NAME } from "../../../src/adapters/export/anki-collection";
import { ApkgFlashcardExporter } from "../../../src/adapters/export/apkg-flashcard-exporter";
import { runPython } from "./python";

const exportedAt = new Date("2026-03-02T09:00:00.250Z");
const SECONDS = Math.floor(exportedAt.getTime() / 1000);

const deck: ExportableDeck = {
  id: "set-1",
  title: "Cell Biology: Mitosis",
  description: "Phases & <checkpoints>",
  courseName: "Bio 101",
  noteTitle: "Lecture 4",
  cards: [
    {
      id: "card-a",
      front: "What is <b>prophase</b>?",
      back: "Chromatin condenses;\nspindle forms.",
      order: 0,
      source: { noteId: "n1", startTime: 30 },
    },
    { id: "card-b", front: "Say \"cytokinesis\" & 'telophase'", back: "Größe 日本語 📈", order: 1, source: null },
    { id: "card-c", front: "Line one\r\nline two", back: "tab\there\x1fgone", order: 2, source: null },
  ],
};

let workDir: string;
let SQL: Awaited<ReturnType<typeof initSqlJs>>;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "apkg-export-"));
  SQL = await initSqlJs({ locateFile: () => require.resolve("sql.js/dist/sql-wasm.wasm") });
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

async function exportDeck(exported: ExportableDeck = deck, at = exportedAt) {
  return new ApkgFlashcardExporter(() => at).export(exported);
}

function openCollection(apkg: Buffer): Database {
  return new SQL.Database(unzipSync(apkg)["collection.anki2"]);
}

function rows(db: Database, sql: string): Record<string, unknown>[] {
  const [result] = db.exec(sql);
  return result ? result.values.map((values) => Object.fromEntries(result.columns.map((column, index) => [column, values[index]]))) : [];
}

function collectionJson(db: Database) {
  const [col] = rows(db, "select * from col");
  return {
    col,
    models: JSON.parse(col.models as string),
    decks: JSON.parse(col.decks as string),
    dconf: JSON.parse(col.dconf as string),
    conf: JSON.parse(col.conf as string),
  };
}

describe("Anki package export", () => {
  it("names the file after the set", async () => {
    const file = await exportDeck();
    expect(file.fileName).toBe("cell-biology-mitosis.apkg");
    expect(file.contentType).toBe("application/octet-stream");
    expect(new ApkgFlashcardExporter().format).toBe("apkg");
  });

  it("zips the collection database and an empty media index", async () => {
    const entries = unzipSync((await exportDeck()).content);
    expect(Object.keys(entries).sort()).toEqual(["collection.anki2", "media"]);
    expect(strFromU8(entries.media)).toBe("{}");
    expect(strFromU8(entries["collection.anki2"].subarray(0, 15))).toBe("SQLite format 3");
  });

  it("creates the schema 11 tables and indexes", async () => {
    const db = openCollection((await exportDeck()).content);
    expect(rows(db, "pragma integrity_check")).toEqual([{ integrity_check: "ok" }]);
    const objects = rows(db, "select type, name from sqlite_master where name not like 'sqlite_%' order by type, name");
    expect(objects.map(({ type, name }) => `${type} ${name}`)).toEqual([
      "index ix_cards_nid",
      "index ix_cards_sched",
      "index ix_cards_usn",
      "index ix_notes_csum",
      "index ix_notes_usn",
      "index ix_revlog_cid",
      "index ix_revlog_usn",
      "table cards",
      "table col",
      "table graves",
      "table notes",
      "table revlog",
    ]);
    expect(rows(db, "select count(*) as n from revlog union all select count(*) from graves")).toEqual([{ n: 0 }, { n: 0 }]);
    db.close();
  });

  it("describes the Basic note type, the course/set decks and the default options in the col row", async () => {
    const db = openCollection((await exportDeck()).content);
    const { col, models, decks, dconf, conf } = collectionJson(db);
    expect(col).toMatchObject({ id: 1, ver: 11, mod: exportedAt.getTime(), scm: exportedAt.getTime(), usn: 0, tags: "{}" });

    expect(Object.keys(models)).toEqual([String(NOTE_TYPE_ID)]);
    const model = models[NOTE_TYPE_ID];
    expect(model).toMatchObject({ id: NOTE_TYPE_ID, name: NOTE_TYPE_NAME, type: 0, sortf: 0, mod: SECONDS, usn: -1 });
    expect(model.flds.map((field: { name: string; ord: number }) => [field.ord, field.name])).toEqual([
      [0, "Front"],
      [1, "Back"],
    ]);
    expect(model.tmpls).toHaveLength(1);
    expect(model.tmpls[0]).toMatchObject({ ord: 0, qfmt: "{{Front}}" });
    expect(model.tmpls[0].afmt).toContain("{{Back}}");

    const byName = Object.fromEntries(Object.values(decks).map((each) => [(each as { name: string }).name, each]));
    expect(Object.keys(byName).sort()).toEqual(["Bio 101", "Bio 101::Cell Biology: Mitosis", "Default"]);
    const setDeck = byName["Bio 101::Cell Biology: Mitosis"] as Record<string, unknown>;
    expect(setDeck).toMatchObject({ desc: "Phases &amp; &lt;checkpoints&gt;", dyn: 0, conf: 1, usn: -1 });
    expect(decks[String(setDeck.id)]).toBe(setDeck);
    expect(model.did).toBe(setDeck.id);
    expect(dconf["1"]).toMatchObject({ id: 1, name: "Default" });
    expect(conf).toMatchObject({ curModel: NOTE_TYPE_ID, nextPos: 4 });
    db.close();
  });

  it("writes one note and one new card per flashcard, in order, with HTML-escaped fields", async () => {
    const db = openCollection((await exportDeck()).content);
    const { decks } = collectionJson(db);
    const setDeckId = Object.values(decks)
      .map((each) => each as { id: number; name: string })
      .find((each) => each.name.includes("::"))!.id;

    const notes = rows(db, "select id, guid, mid, mod, usn, tags, flds, sfld, flags, data from notes order by id");
    expect(notes.map((note) => (note.flds as string).split("\x1f"))).toEqual([
      ["What is &lt;b&gt;prophase&lt;/b&gt;?", "Chromatin condenses;<br>spindle forms."],
      ["Say &quot;cytokinesis&quot; &amp; &#39;telophase&#39;", "Größe 日本語 📈"],
      ["Line one<br>line two", "tab\theregone"],
    ]);
    expect(notes.map((note) => note.sfld)).toEqual(["What is <b>prophase</b>?", "Say \"cytokinesis\" & 'telophase'", "Line oneline two"]);
    for (const note of notes) {
      expect(note).toMatchObject({ mid: NOTE_TYPE_ID, mod: SECONDS, usn: -1, tags: "", flags: 0, data: "" });
    }
    expect(notes.map((note) => note.id)).toEqual([0, 1, 2].map((index) => exportedAt.getTime() + index));

    const cards = rows(db, "select * from cards order by due");
    expect(cards.map((card) => card.nid)).toEqual(notes.map((note) => note.id));
    for (const [index, card] of cards.entries()) {
      expect(card).toMatchObject({ did: setDeckId, ord: 0, type: 0, queue: 0, due: index + 1, ivl: 0, reps: 0, usn: -1, mod: SECONDS });
    }
    db.close();
  });

  it("derives each note's guid from its card id: unique, and the same in every export", async () => {
    const guids = (db: Database) => rows(db, "select guid from notes order by id").map((note) => note.guid);
    const first = guids(openCollection((await exportDeck()).content));
    const later = guids(openCollection((await exportDeck(deck, new Date("2027-01-01T00:00:00Z"))).content));
    expect(new Set(first).size).toBe(3);
    expect(later).toEqual(first);
    const reordered = guids(openCollection((await exportDeck({ ...deck, cards: [...deck.cards].reverse() })).content));
    expect(reordered).toEqual([...first].reverse());
  });

  it("nests the set under its course in one deck-name level each, and stands alone without a course", async () => {
    const deckNames = async (courseName: string, title: string) => {
      const { decks } = collectionJson(openCollection((await exportDeck({ ...deck, courseName, title })).content));
      return Object.values(decks)
        .map((each) => (each as { name: string }).name)
        .sort();
    };
    expect(await deckNames("Physics::Mechanics", "::Forces:: ")).toEqual(["Default", "Physics:Mechanics", "Physics:Mechanics::Forces"]);
    expect(await deckNames("  ", "Forces")).toEqual(["Default", "Forces"]);
    expect(await deckNames("", "")).toEqual(["Default", "Flashcards"]);
  });

  it("is read the same by Python's zipfile and sqlite3: integrity, references, field checksums", async () => {
    const apkgPath = join(workDir, "deck.apkg");
    writeFileSync(apkgPath, (await exportDeck()).content);
    // An independent reading: the checksum as Anki defines it (SHA-1 of the first field with HTML tags
    // stripped and entities decoded, first 8 hex digits), computed with Python's own html and hashlib.
    const script = `
import hashlib, html, json, re, sqlite3, sys, tempfile, zipfile, os
with zipfile.ZipFile(sys.argv[1]) as apkg:
    assert apkg.testzip() is None
    names = sorted(apkg.namelist())
    media = apkg.read("media").decode()
    path = os.path.join(tempfile.mkdtemp(), "collection.anki2")
    with open(path, "wb") as out:
        out.write(apkg.read("collection.anki2"))
db = sqlite3.connect(path)
one = lambda sql: db.execute(sql).fetchone()
models, decks, ver = one("select models, decks, ver from col")
models, decks = json.loads(models), json.loads(decks)
notes = db.execute("select id, mid, flds, sfld, csum, typeof(id), typeof(csum) from notes order by id").fetchall()
def checksum(field):
    return int(hashlib.sha1(html.unescape(re.sub(r"<.*?>", "", field)).encode("utf-8")).hexdigest()[:8], 16)
print(json.dumps({
    "names": names,
    "media": media,
    "integrity": one("pragma integrity_check")[0],
    "ver": ver,
    "notes": len(notes),
    "cards": one("select count(*) from cards")[0],
    "modelIds": sorted(models.keys()),
    "notesWithUnknownModel": sum(1 for note in notes if str(note[1]) not in models),
    "cardsWithUnknownDeck": sum(1 for (did,) in db.execute("select did from cards") if str(did) not in decks),
    "cardsWithoutNote": one("select count(*) from cards where nid not in (select id from notes)")[0],
    "wrongChecksums": [note[0] for note in notes if note[4] != checksum(note[2].split("\\x1f")[0])],
    "columnTypes": sorted({note[5] for note in notes} | {note[6] for note in notes}),
    "fieldCounts": sorted({len(note[2].split("\\x1f")) for note in notes}),
}))
`;
    expect(runPython(script, [apkgPath])).toEqual({
      names: ["collection.anki2", "media"],
      media: "{}",
      integrity: "ok",
      ver: 11,
      notes: 3,
      cards: 3,
      modelIds: [String(NOTE_TYPE_ID)],
      notesWithUnknownModel: 0,
      cardsWithUnknownDeck: 0,
      cardsWithoutNote: 0,
      wrongChecksums: [],
      columnTypes: ["integer"],
      fieldCounts: [2],
    });
  });
});
