import * as CFB from "cfb";

/**
 * A minimal Word 97-2003 binary document (.doc) holding plain paragraphs, written by hand because no library here
 * writes .doc: an OLE compound file with
 * - a `WordDocument` stream: the File Information Block (FIB, [MS-DOC] 2.5.1) followed by the text;
 * - a `1Table` stream: the CLX, i.e. the piece table that maps character positions to the text's bytes.
 * No style sheet, fonts or formatting runs: readers fall back to their defaults (antiword and catdoc read it).
 */
export function buildWord97Document(paragraphs: string[]): Buffer {
  // Paragraphs end with a paragraph mark (CR); the main text must end with one.
  const text = paragraphs.map((p) => `${p}\r`).join("");
  // 8-bit ("compressed") text is Windows-1252; Latin-1 agrees with it outside 0x80-0x9F. Anything else is UTF-16.
  const compressed = [...text].every((c) => c.charCodeAt(0) <= 0xff && (c.charCodeAt(0) < 0x80 || c.charCodeAt(0) > 0x9f));
  const textBytes = compressed ? Buffer.from(text, "latin1") : Buffer.from(text, "utf16le");

  const fcText = 0x400; // where the text starts in the WordDocument stream (after the 900-byte FIB)
  // antiword refuses a WordDocument stream under 4096 bytes (it must live in big blocks, as Word writes it).
  const wordDocument = Buffer.alloc(Math.max(4096 + 512, fcText + textBytes.length));
  const clx = pieceTable(text.length, fcText, compressed);
  const styles = emptyStyleSheet();
  textBytes.copy(wordDocument, fcText);
  writeFib(wordDocument, {
    fcText,
    textEnd: fcText + textBytes.length,
    characterCount: text.length,
    clxLength: clx.length,
    styleSheetLength: styles.length,
  });

  const container = CFB.utils.cfb_new();
  CFB.utils.cfb_add(container, "/WordDocument", wordDocument);
  CFB.utils.cfb_add(container, "/1Table", Buffer.concat([clx, styles]));
  return Buffer.from(CFB.write(container, { type: "buffer" }) as Uint8Array);
}

interface FibValues {
  fcText: number;
  textEnd: number;
  characterCount: number;
  clxLength: number;
  styleSheetLength: number;
}

/** The FIB of a Word 97 file (nFib 0x00C1) with only the fields a reader needs to find the text. */
function writeFib(stream: Buffer, values: FibValues): void {
  // FibBase (32 bytes)
  stream.writeUInt16LE(0xa5ec, 0x00); // wIdent: the Word binary file signature
  stream.writeUInt16LE(0x00c1, 0x02); // nFib: Word 97 and later
  stream.writeUInt16LE(0x0409, 0x06); // lid: the install language, en-US
  // flags: fWhichTblStm (bit 9: the table stream is "1Table", not "0Table"), fExtChar (bit 12: must be set)
  stream.writeUInt16LE((1 << 9) | (1 << 12), 0x0a);
  stream.writeUInt16LE(0x00bf, 0x0c); // nFibBack: must be 0x00BF or 0x00C1
  // reserved3/4 stay zero; reserved5/6 are the fcMin/fcMac of earlier versions (the text's byte range), which
  // Word keeps writing and older readers (catdoc) still use.
  stream.writeUInt32LE(values.fcText, 0x18);
  stream.writeUInt32LE(values.textEnd, 0x1c);

  let offset = 32;
  stream.writeUInt16LE(14, offset); // csw: 14 16-bit values in FibRgW97 (all zero: no far-east language)
  offset += 2 + 14 * 2;
  stream.writeUInt16LE(22, offset); // cslw: 22 32-bit values in FibRgLw97
  offset += 2;
  stream.writeInt32LE(values.textEnd, offset); // cbMac: the end of the meaningful bytes of the stream
  stream.writeInt32LE(values.characterCount, offset + 3 * 4); // ccpText: characters of the main document
  // ccpFtn, ccpHdd, ccpAtn, ccpEdn, ccpTxbx, ccpHdrTxbx stay zero: no footnotes, headers, comments or text boxes.
  offset += 22 * 4;
  stream.writeUInt16LE(0x5d, offset); // cbRgFcLcb: 93 fc/lcb pairs (FibRgFcLcb97), as nFib 0x00C1 requires
  offset += 2;
  // Each pair is (fc: offset in the table stream, lcb: length). The 1Table stream holds the CLX (pair 33) and then
  // the style sheet (pairs 0 and 1: the original and the current one). Every other structure (fonts, formatting
  // runs, sections) is absent and its lcb 0 tells the reader so. The style sheet cannot be absent: antiword reads
  // its header whatever lcbStshf says, and an empty one made it read past its buffer and crash now and then.
  const fcClxPair = offset + 33 * 8;
  stream.writeUInt32LE(0, fcClxPair);
  stream.writeUInt32LE(values.clxLength, fcClxPair + 4);
  for (const pair of [0, 1]) {
    stream.writeUInt32LE(values.clxLength, offset + pair * 8);
    stream.writeUInt32LE(values.styleSheetLength, offset + pair * 8 + 4);
  }
  offset += 93 * 8;
  stream.writeUInt16LE(0, offset); // cswNew: no FibRgCswNew for nFib 0x00C1
}

/**
 * The CLX: one Pcdt (clxt 0x02, then its length and a PlcPcd) describing a single piece that covers the whole
 * text: character positions [0, count) at byte offset fcText. For 8-bit text the Pcd stores fc * 2 with the
 * fCompressed bit (0x40000000) set, as [MS-DOC] 2.9.73 FcCompressed says.
 */
function pieceTable(characterCount: number, fcText: number, compressed: boolean): Buffer {
  const plcPcd = Buffer.alloc(2 * 4 + 8);
  plcPcd.writeUInt32LE(0, 0); // aCP[0]
  plcPcd.writeUInt32LE(characterCount, 4); // aCP[1]
  // Pcd: 2 bytes of flags (zero), 4 bytes FcCompressed, 2 bytes prm (zero: no property modifier)
  const fc = compressed ? (fcText * 2) | 0x40000000 : fcText;
  plcPcd.writeUInt32LE(fc >>> 0, 8 + 2);
  const clx = Buffer.alloc(1 + 4 + plcPcd.length);
  clx.writeUInt8(0x02, 0); // clxt: a Pcdt
  clx.writeUInt32LE(plcPcd.length, 1); // lcb of the PlcPcd
  plcPcd.copy(clx, 5);
  return clx;
}

/**
 * A style sheet with no styles ([MS-DOC] 2.9.271 STSH): its length, then the STSHI header: cstd 0 styles,
 * cbSTDBaseInFile 10 (the Word 97 STD base), flags, stiMaxWhenSaved, istdMaxFixedWhenSaved,
 * nVerBuiltInNamesWhenSaved and the three default fonts (all 0).
 */
function emptyStyleSheet(): Buffer {
  const stshiLength = 18;
  const stsh = Buffer.alloc(2 + stshiLength);
  stsh.writeUInt16LE(stshiLength, 0); // cbStshi
  stsh.writeUInt16LE(0, 2); // cstd
  stsh.writeUInt16LE(10, 4); // cbSTDBaseInFile
  return stsh;
}
