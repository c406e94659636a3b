import type { ExportableDeck } from "../../application/ports/flashcard-exporter.port";
import { ankiFieldChecksum, ankiFieldHtml, ankiNoteGuid, ankiPlainText } from "./anki-fields";
import { loadSqlJs } from "./sql-js";

/**
 * The classic Anki collection (schema 11, `collection.anki2`), which every Anki version imports: the tables and
 * indexes exactly as Anki declares them (rslib/src/storage/schema11.sql).
 */
const SCHEMA_11 = `
create table col (id integer primary key, crt integer not null, mod integer not null, scm integer not null,
  ver integer not null, dty integer not null, usn integer not null, ls integer not null, conf text not null,
  models text not null, decks text not null, dconf text not null, tags text not null);
create table notes (id integer primary key, guid text not null, mid integer not null, mod integer not null,
  usn integer not null, tags text not null, flds text not null, sfld integer not null, csum integer not null,
  flags integer not null, data text not null);
create table cards (id integer primary key, nid integer not null, did integer not null, ord integer not null,
  mod integer not null, usn integer not null, type integer not null, queue integer not null, due integer not null,
  ivl integer not null, factor integer not null, reps integer not null, lapses integer not null,
  left integer not null, odue integer not null, odid integer not null, flags integer not null, data text not null);
create table revlog (id integer primary key, cid integer not null, usn integer not null, ease integer not null,
  ivl integer not null, lastIvl integer not null, factor integer not null, time integer not null,
  type integer not null);
create table graves (usn integer not null, oid integer not null, type integer not null);
create index ix_notes_usn on notes (usn);
create index ix_cards_usn on cards (usn);
create index ix_revlog_usn on revlog (usn);
create index ix_cards_nid on cards (nid);
create index ix_cards_sched on cards (did, queue, due);
create index ix_revlog_cid on revlog (cid);
create index ix_notes_csum on notes (csum);
`;

const SCHEMA_VERSION = 11;
/** usn -1 marks rows as changed since the last sync, as Anki does for anything added locally. */
const NOT_SYNCED = -1;
const DEFAULT_DECK_ID = 1;
const DEFAULT_DECK_CONFIG_ID = 1;
/**
 * One fixed id (a millisecond timestamp, like Anki's) for the note type of every export: Anki then reuses the note
 * type it imported before instead of adding a copy per import.
 */
export const NOTE_TYPE_ID = 1_735_689_600_000;
export const NOTE_TYPE_NAME = "Study Service Basic";

/** Anki's stock "Basic" note type: Front and Back fields, one card showing the front, then both. */
function basicNoteType(deckId: number, modifiedSeconds: number) {
  return {
    id: NOTE_TYPE_ID,
    name: NOTE_TYPE_NAME,
    type: 0, // standard, not cloze
    mod: modifiedSeconds,
    usn: NOT_SYNCED,
    sortf: 0,
    did: deckId,
    flds: ["Front", "Back"].map((name, ord) => ({ name, ord, sticky: false, rtl: false, font: "Arial", size: 20, media: [] })),
    tmpls: [
      {
        name: "Card 1",
        ord: 0,
        qfmt: "{{Front}}",
        afmt: "{{FrontSide}}\n\n<hr id=answer>\n\n{{Back}}",
        bqfmt: "",
        bafmt: "",
        did: null,
        bfont: "",
        bsize: 0,
      },
    ],
    css: ".card {\n  font-family: arial;\n  font-size: 20px;\n  text-align: center;\n  color: black;\n  background-color: white;\n}\n",
    latexPre:
      "\\documentclass[12pt]{article}\n\\special{papersize=3in,5in}\n\\usepackage[utf8]{inputenc}\n\\usepackage{amssymb,amsmath}\n" +
      "\\pagestyle{empty}\n\\setlength{\\parindent}{0in}\n\\begin{document}\n",
    latexPost: "\\end{document}",
    latexsvg: false,
    // Older Anki versions decide from this which templates yield a card: card 0 needs the Front field.
    req: [[0, "any", [0]]],
    tags: [],
    vers: [],
  };
}

function deckJson(id: number, name: string, description: string, modifiedSeconds: number, usn = NOT_SYNCED) {
  return {
    id,
    name,
    desc: description,
    mod: modifiedSeconds,
    usn,
    conf: DEFAULT_DECK_CONFIG_ID,
    dyn: 0,
    collapsed: false,
    browserCollapsed: false,
    extendNew: 0,
    extendRev: 0,
    newToday: [0, 0],
    revToday: [0, 0],
    lrnToday: [0, 0],
    timeToday: [0, 0],
  };
}

/** Anki's default deck options (the "Default" preset that every deck without options of its own uses). */
const DEFAULT_DECK_CONFIG = {
  id: DEFAULT_DECK_CONFIG_ID,
  name: "Default",
  mod: 0,
  usn: 0,
  maxTaken: 60,
  autoplay: true,
  timer: 0,
  replayq: true,
  dyn: false,
  new: { bury: false, delays: [1, 10], initialFactor: 2500, ints: [1, 4, 0], order: 1, perDay: 20 },
  rev: { bury: false, ease4: 1.3, ivlFct: 1, maxIvl: 36500, perDay: 200, hardFactor: 1.2 },
  lapse: { delays: [10], leechAction: 1, leechFails: 8, minInt: 1, mult: 0 },
};

/** One level of a deck name: "::" separates levels in Anki, so it must not occur (nor begin or end) inside one. */
function deckNameLevel(name: string): string {
  return (
    name
      // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
      .replace(/[\u0000-\u001f\u007f]/g, "")
      .replace(/:{2,}/g, ":")
      .replace(/^[\s:]+|[\s:]+$/g, "")
  );
}

/** The set's deck inside a deck named after its course ("Course::Set"); the set's own deck when there is no course name. */
function ankiDeckNames(deck: Pick<ExportableDeck, "courseName" | "title">): { parent: string | null; set: string } {
  const course = deckNameLevel(deck.courseName);
  const title = deckNameLevel(deck.title) || "Flashcards";
  return course ? { parent: course, set: `${course}::${title}` } : { parent: null, set: title };
}

/**
 * The set as an Anki collection database: one Basic note and one new card per flashcard, in display order, in the
 * set's deck. Note and card ids are millisecond timestamps counting up from `now`, as Anki's are.
 */
export async function buildAnkiCollection(deck: ExportableDeck, now: Date): Promise<Uint8Array> {
  const nowMs = now.getTime();
  const nowSeconds = Math.floor(nowMs / 1000);
  const deckNames = ankiDeckNames(deck);
  const parentDeckId = nowMs;
  const setDeckId = nowMs + 1;

  const decks: Record<number, ReturnType<typeof deckJson>> = {
    // Anki expects every collection to hold the Default deck; importing leaves it out, as it holds no card.
    [DEFAULT_DECK_ID]: deckJson(DEFAULT_DECK_ID, "Default", "", 0, 0),
    [setDeckId]: deckJson(setDeckId, deckNames.set, ankiFieldHtml(deck.description), nowSeconds),
  };
  if (deckNames.parent) decks[parentDeckId] = deckJson(parentDeckId, deckNames.parent, "", nowSeconds);
  const collectionConfig = {
    activeDecks: [DEFAULT_DECK_ID],
    curDeck: DEFAULT_DECK_ID,
    curModel: NOTE_TYPE_ID,
    nextPos: deck.cards.length + 1,
    newSpread: 0,
    collapseTime: 1200,
    timeLim: 0,
    estTimes: true,
    dueCounts: true,
    addToCur: true,
    newBury: true,
    sortType: "noteFld",
    sortBackwards: false,
  };

  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  try {
    db.exec(SCHEMA_11);
    db.run(
      "insert into col (id, crt, mod, scm, ver, dty, usn, ls, conf, models, decks, dconf, tags)" +
        " values (1, ?, ?, ?, ?, 0, 0, 0, ?, ?, ?, ?, '{}')",
      [
        // crt: the day the collection began (review cards count their due day from it; every card here is new).
        Math.floor(nowSeconds / 86_400) * 86_400,
        nowMs, // col.mod and col.scm are in milliseconds
        nowMs,
        SCHEMA_VERSION,
        JSON.stringify(collectionConfig),
        JSON.stringify({ [NOTE_TYPE_ID]: basicNoteType(setDeckId, nowSeconds) }),
        JSON.stringify(decks),
        JSON.stringify({ [DEFAULT_DECK_CONFIG_ID]: DEFAULT_DECK_CONFIG }),
      ],
    );

    const insertNote = db.prepare(
      "insert into notes (id, guid, mid, mod, usn, tags, flds, sfld, csum, flags, data) values (?, ?, ?, ?, ?, '', ?, ?, ?, 0, '')",
    );
    // type 0 and queue 0: a new card, whose due is its position in the new-card queue.
    const insertCard = db.prepare(
      "insert into cards (id, nid, did, ord, mod, usn, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, flags, data)" +
        " values (?, ?, ?, 0, ?, ?, 0, 0, ?, 0, 0, 0, 0, 0, 0, 0, 0, '')",
    );
    deck.cards.forEach((card, index) => {
      const id = nowMs + index;
      const fields = [ankiFieldHtml(card.front), ankiFieldHtml(card.back)];
      const sortText = ankiPlainText(fields[0]);
      const checksum = ankiFieldChecksum(sortText);
      insertNote.run([id, ankiNoteGuid(card.id), NOTE_TYPE_ID, nowSeconds, NOT_SYNCED, fields.join("\x1f"), sortText, checksum]);
      insertCard.run([id, id, setDeckId, nowSeconds, NOT_SYNCED, index + 1]);
    });
    insertNote.free();
    insertCard.free();
    return db.export();
  } finally {
    db.close();
  }
}
