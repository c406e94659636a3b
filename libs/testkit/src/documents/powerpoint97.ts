import * as CFB from "cfb";

/** A slide of a PowerPoint 97 fixture: its title and body paragraphs. */
export interface Ppt97Slide {
  title: string;
  body: string[];
}

// Record types of [MS-PPT] 2.13.24 used here.
const RT_DOCUMENT = 0x03e8;
const RT_DOCUMENT_ATOM = 0x03e9;
const RT_END_DOCUMENT_ATOM = 0x03ea;
const RT_SLIDE_PERSIST_ATOM = 0x03f3;
const RT_TEXT_HEADER_ATOM = 0x0f9f;
const RT_TEXT_CHARS_ATOM = 0x0fa0;
const RT_TEXT_BYTES_ATOM = 0x0fa8;
const RT_SLIDE_LIST_WITH_TEXT = 0x0ff0;
const RT_USER_EDIT_ATOM = 0x0ff5;
const RT_CURRENT_USER_ATOM = 0x0ff6;
const RT_PERSIST_DIRECTORY_ATOM = 0x1772;

/**
 * A minimal PowerPoint 97-2003 binary presentation (.ppt), written by hand because no library here writes .ppt:
 * an OLE compound file with
 * - a `PowerPoint Document` stream: a DocumentContainer whose SlideListWithText holds, per slide, a
 *   SlidePersistAtom and the slide's text (TextHeaderAtom + TextBytesAtom or TextCharsAtom per placeholder),
 *   then the PersistDirectoryAtom and the UserEditAtom that point at the document;
 * - a `Current User` stream: the CurrentUserAtom that points at the UserEditAtom.
 * The slides carry their text only (no drawings, no slide containers): enough for text extractors that walk the
 * records (catppt), not for PowerPoint to lay the slides out.
 */
export function buildPowerPoint97Presentation(slides: Ppt97Slide[]): Buffer {
  const slideList = slides.flatMap((slide, index) => [
    atom(RT_SLIDE_PERSIST_ATOM, slidePersistAtom(index, slide.body.length > 0 ? 2 : 1)),
    ...textBlock(0, slide.title), // TextHeaderAtom textType 0: title
    ...(slide.body.length > 0 ? textBlock(1, slide.body.join("\r")) : []), // 1: body (CR separates paragraphs)
  ]);
  const document = container(RT_DOCUMENT, [
    atom(RT_DOCUMENT_ATOM, documentAtom(), 1),
    container(RT_SLIDE_LIST_WITH_TEXT, slideList),
    atom(RT_END_DOCUMENT_ATOM, Buffer.alloc(0)),
  ]);
  // Persist object 1 is the document, at offset 0 of the stream.
  const persistDirectoryOffset = document.length;
  const persistDirectory = atom(RT_PERSIST_DIRECTORY_ATOM, persistDirectoryEntry(1, [0]));
  const userEditOffset = persistDirectoryOffset + persistDirectory.length;
  const userEdit = atom(RT_USER_EDIT_ATOM, userEditAtom(persistDirectoryOffset));
  const stream = Buffer.concat([document, persistDirectory, userEdit]);

  const compound = CFB.utils.cfb_new();
  CFB.utils.cfb_add(compound, "/PowerPoint Document", stream);
  CFB.utils.cfb_add(compound, "/Current User", currentUserAtom(userEditOffset));
  return Buffer.from(CFB.write(compound, { type: "buffer" }) as Uint8Array);
}

/** A record: 8-byte header (recVer 4 bits, recInstance 12 bits, recType 16 bits, recLen 32 bits) and body. */
function record(version: number, instance: number, type: number, body: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt16LE((version & 0xf) | (instance << 4), 0);
  header.writeUInt16LE(type, 2);
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body]);
}

const atom = (type: number, body: Buffer, version = 0): Buffer => record(version, 0, type, body);
/** Containers have recVer 0xF: readers descend into them. */
const container = (type: number, children: Buffer[]): Buffer => record(0xf, 0, type, Buffer.concat(children));

/** A placeholder's text: TextBytesAtom (8-bit) when every character fits Latin-1, else TextCharsAtom (UTF-16). */
function textBlock(textType: number, text: string): Buffer[] {
  const header = Buffer.alloc(4);
  header.writeUInt32LE(textType, 0);
  const latin1 = [...text].every((c) => c.charCodeAt(0) <= 0xff);
  const textAtom = latin1 ? atom(RT_TEXT_BYTES_ATOM, Buffer.from(text, "latin1")) : atom(RT_TEXT_CHARS_ATOM, Buffer.from(text, "utf16le"));
  return [atom(RT_TEXT_HEADER_ATOM, header), textAtom];
}

/** SlidePersistAtom (20 bytes): persistIdRef, flags, cTexts, slideId (256 + index), reserved. */
function slidePersistAtom(index: number, texts: number): Buffer {
  const body = Buffer.alloc(20);
  body.writeUInt32LE(0, 0); // persistIdRef: no slide container is written
  body.writeInt32LE(texts, 8); // cTexts: the placeholders with text
  body.writeUInt32LE(256 + index, 12); // slideId: slide identifiers start at 0x100
  return body;
}

/** DocumentAtom (40 bytes): a 10 in x 7.5 in slide (master units, 576 per inch), notes page, zoom 1/2. */
function documentAtom(): Buffer {
  const body = Buffer.alloc(40);
  body.writeInt32LE(5760, 0); // slideSize.x
  body.writeInt32LE(4320, 4); // slideSize.y
  body.writeInt32LE(4320, 8); // notesSize.x
  body.writeInt32LE(5760, 12); // notesSize.y
  body.writeInt32LE(1, 16); // serverZoom numerator
  body.writeInt32LE(2, 20); // serverZoom denominator
  body.writeUInt16LE(1, 32); // firstSlideNumber
  body.writeUInt8(1, 39); // fShowComments
  return body;
}

/** PersistDirectoryEntry: persistId (20 bits) and cPersist (12 bits), then one stream offset per object. */
function persistDirectoryEntry(firstPersistId: number, offsets: number[]): Buffer {
  const body = Buffer.alloc(4 + 4 * offsets.length);
  body.writeUInt32LE((firstPersistId | (offsets.length << 20)) >>> 0, 0);
  offsets.forEach((offset, index) => body.writeUInt32LE(offset, 4 + 4 * index));
  return body;
}

/** UserEditAtom (28 bytes): the last (only) edit, its persist directory, the document's persist id. */
function userEditAtom(persistDirectoryOffset: number): Buffer {
  const body = Buffer.alloc(28);
  body.writeUInt32LE(256, 0); // lastSlideIdRef
  body.writeUInt16LE(0, 4); // version
  body.writeUInt8(0, 6); // minorVersion
  body.writeUInt8(3, 7); // majorVersion
  body.writeUInt32LE(0, 8); // offsetLastEdit: no earlier edit
  body.writeUInt32LE(persistDirectoryOffset, 12); // offsetPersistDirectory
  body.writeUInt32LE(1, 16); // docPersistIdRef: the DocumentContainer
  body.writeUInt32LE(2, 20); // persistIdSeed: the next free persist id
  body.writeUInt16LE(1, 24); // lastView: slide view
  return body;
}

/** The `Current User` stream: CurrentUserAtom (not encrypted) pointing at the UserEditAtom. */
function currentUserAtom(userEditOffset: number): Buffer {
  const userName = Buffer.from("testkit", "latin1");
  const body = Buffer.alloc(20 + userName.length + 4);
  body.writeUInt32LE(0x14, 0); // size
  body.writeUInt32LE(0xe391c05f, 4); // headerToken: an unencrypted document
  body.writeUInt32LE(userEditOffset, 8); // offsetToCurrentEdit
  body.writeUInt16LE(userName.length, 12); // lenUserName
  body.writeUInt16LE(0x03f4, 14); // docFileVersion
  body.writeUInt8(3, 16); // majorVersion
  body.writeUInt8(0, 17); // minorVersion
  userName.copy(body, 20);
  body.writeUInt32LE(8, 20 + userName.length); // relVersion
  return atom(RT_CURRENT_USER_ATOM, body);
}
