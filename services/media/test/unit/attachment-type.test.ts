import { ATTACHMENT_SIZE_LIMITS, assertAttachmentContent, attachmentTypeOf } from "../../src/domain/attachment-type";
import { refusal } from "@study/testkit/refusal";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const ZIP = Buffer.from([0x50, 0x4b, 0x03, 0x04, 20, 0]);
const OLE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0]);

describe("attachment types", () => {
  it("knows the spec's types by extension, with the size limit of their category", async () => {
    expect(attachmentTypeOf("Slide 1.PNG")).toMatchObject({ mimeType: "image/png", category: "image" });
    expect(attachmentTypeOf("paper.pdf")).toMatchObject({ mimeType: "application/pdf", category: "document" });
    expect(attachmentTypeOf("deck.pptx").category).toBe("presentation");
    expect(attachmentTypeOf("grades.csv")).toMatchObject({ mimeType: "text/csv", category: "spreadsheet" });
    expect(ATTACHMENT_SIZE_LIMITS).toEqual({
      image: 10 * 1024 * 1024,
      document: 25 * 1024 * 1024,
      presentation: 25 * 1024 * 1024,
      spreadsheet: 10 * 1024 * 1024,
    });
    expect(await refusal(() => attachmentTypeOf("setup.exe"))).toMatchObject({ code: "UNEXPECTED_FILE" });
    expect(await refusal(() => attachmentTypeOf("README"))).toMatchObject({ code: "UNEXPECTED_FILE" });
  });

  it("checks the content against the claimed type", async () => {
    expect(() => assertAttachmentContent(attachmentTypeOf("a.png"), PNG)).not.toThrow();
    expect(() => assertAttachmentContent(attachmentTypeOf("a.docx"), ZIP)).not.toThrow();
    expect(() => assertAttachmentContent(attachmentTypeOf("a.xls"), OLE)).not.toThrow();
    expect(() => assertAttachmentContent(attachmentTypeOf("a.pdf"), Buffer.from("%PDF-1.7\n"))).not.toThrow();
    expect(() => assertAttachmentContent(attachmentTypeOf("a.txt"), Buffer.from("Notes — über café\n"))).not.toThrow();
    expect(await refusal(() => assertAttachmentContent(attachmentTypeOf("a.png"), Buffer.from("hello")))).toMatchObject({ code: "UNEXPECTED_FILE" });
    expect(await refusal(() => assertAttachmentContent(attachmentTypeOf("a.csv"), PNG))).toMatchObject({ code: "UNEXPECTED_FILE" });
    expect(await refusal(() => assertAttachmentContent(attachmentTypeOf("a.txt"), Buffer.alloc(0)))).toMatchObject({ code: "UNEXPECTED_FILE" });
  });
});
