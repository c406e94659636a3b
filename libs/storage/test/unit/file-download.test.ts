import { contentDisposition, requestedByteRange } from "../../src/file-download";

describe("requestedByteRange (HTTP Range of a 1000-byte file)", () => {
  it.each([
    ["bytes=0-99", { start: 0, end: 99 }],
    ["bytes=500-", { start: 500, end: 999 }],
    ["bytes=-100", { start: 900, end: 999 }],
    ["bytes=-5000", { start: 0, end: 999 }],
    ["bytes=990-5000", { start: 990, end: 999 }],
    ["bytes = 10 - 19", { start: 10, end: 19 }],
  ])("reads %j as %j", (header, range) => {
    expect(requestedByteRange(header, 1000)).toEqual(range);
  });

  it.each(["bytes=1000-", "bytes=1000-1100", "bytes=-0"])("finds no byte of the file in %j", (header) => {
    expect(requestedByteRange(header, 1000)).toBe("unsatisfiable");
  });

  it("finds no byte at all in an empty file", () => {
    expect(requestedByteRange("bytes=0-", 0)).toBe("unsatisfiable");
    expect(requestedByteRange("bytes=-10", 0)).toBe("unsatisfiable");
  });

  it.each([undefined, "", "bytes=", "bytes=-", "bytes=5-2", "items=0-9", "bytes=0-9,20-29", "bytes=abc-"])(
    "serves the whole file for %j (absent, malformed or several ranges)",
    (header) => {
      expect(requestedByteRange(header, 1000)).toBeNull();
    },
  );
});

describe("contentDisposition", () => {
  it("gives the exact name in filename* and an ASCII fallback in filename", () => {
    expect(contentDisposition("attachment", "Résumé (v2) 100%.pdf")).toBe(
      `attachment; filename="R_sum_ (v2) 100_.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%28v2%29%20100%25.pdf`,
    );
  });

  it("cannot be broken out of by quotes, backslashes or line breaks in the name", () => {
    const header = contentDisposition("inline", 'a"b\\c\r\nX-Injected: 1.mp3');
    expect(header).toBe(`inline; filename="a_b_c__X-Injected: 1.mp3"; filename*=UTF-8''a%22b%5Cc%0D%0AX-Injected%3A%201.mp3`);
  });
});
