import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { httpClient, librivoxClip, parseBody, requireStatus, sharedTestStack, signUpWithCourse, type SharedStack } from "@study/testkit";
import PDFDocument from "pdfkit";
import { multipartBody } from "./openapi-operations";

const MB = 1024 * 1024;
const FILE_BYTES = 5 * MB;

/** The parts of an upload's answer (or its error envelope) the test reads. */
interface UploadAnswer {
  code?: string;
  data?: { note?: { id: string }; uploadInfo?: { size: number } } & Record<string, unknown>;
  document?: { id: string } & Record<string, unknown>;
}

interface ContinuedAnswer {
  status: number;
  body: UploadAnswer;
  /** Whether the gateway asked for the body (100 Continue) before answering. */
  continued: boolean;
}

/**
 * A multipart POST sent the way curl sends any body over 1 MB: the headers with `Expect: 100-continue`, then the
 * body only once the server answered `100 Continue`. A final answer that comes instead of 100 is taken as it is
 * (the body never leaves).
 */
function postExpectingContinue(
  gatewayUrl: string,
  token: string,
  path: string,
  fields: [string, string][],
  file: { name: string; type: string; bytes: Buffer },
): Promise<ContinuedAnswer> {
  const { contentType, body } = multipartBody(fields, file);
  return new Promise((resolve, reject) => {
    let continued = false;
    const request = httpRequest(new URL(path, gatewayUrl), {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": contentType,
        "content-length": String(body.length),
        expect: "100-continue",
      },
    });
    request.on("continue", () => {
      continued = true;
      request.end(body);
    });
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        resolve({ status: response.statusCode ?? 0, body: parseBody(Buffer.concat(chunks).toString("utf8")) as UploadAnswer, continued });
        if (!continued) request.destroy();
      });
      response.on("error", reject);
    });
    request.on("error", (error) => {
      if (!request.destroyed || !continued) reject(error);
    });
    request.flushHeaders();
  });
}

/** A PDF whose page says `text`, with an embedded file of random bytes that brings it to about `size` bytes. */
function paddedPdf(text: string, size: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument();
    const chunks: Buffer[] = [];
    doc.on("data", (chunk: Buffer) => chunks.push(chunk));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
    doc.fontSize(12).text(text);
    // Random bytes do not compress: the file stays as large as asked.
    doc.file(randomBytes(size), { name: "appendix.bin", type: "application/octet-stream" });
    doc.end();
  });
}

/**
 * Issue #29: curl (and other clients) send `Expect: 100-continue` with bodies over about 1 MB. Every upload route
 * must take such a request through the gateway to the service with the signed internal headers, as it takes one
 * without the header: a 5 MB file on each, sent only after 100 Continue.
 */
describe("uploads with Expect: 100-continue", () => {
  let stack: SharedStack;
  let api: ReturnType<typeof httpClient>;
  let audio: Buffer;
  let pdf: Buffer;
  let syllabus: Buffer;

  beforeAll(async () => {
    stack = sharedTestStack();
    api = httpClient(stack.gatewayUrl);
    // A real recording followed by zeros (beyond its RIFF data chunk): an audio file of 5 MB.
    const clip = await readFile(librivoxClip("0880"));
    audio = Buffer.concat([clip, Buffer.alloc(FILE_BYTES - clip.length)]);
    [pdf, syllabus] = await Promise.all([
      paddedPdf("Mitochondria produce ATP through cellular respiration.", FILE_BYTES),
      paddedPdf("Biology 101 syllabus\nFinal exam: December 14, 2026 at 9:00 am", FILE_BYTES),
    ]);
    expect(pdf.length).toBeGreaterThan(FILE_BYTES);
  });

  it("accepts a 5 MB audio upload, an attachment, a document and a syllabus sent after 100 Continue", async () => {
    const user = await signUpWithCourse(api, { name: "Curler", courseName: "Biology" });
    const send = (path: string, fields: [string, string][], file: { name: string; type: string; bytes: Buffer }) =>
      postExpectingContinue(stack.gatewayUrl, user.token, path, fields, file);

    const uploaded = await send("/api/notes/upload/audio", [["courseId", user.courseId]], { name: "lecture.wav", type: "audio/wav", bytes: audio });
    expect({ status: uploaded.status, continued: uploaded.continued, code: uploaded.body?.code }).toEqual({
      status: 201,
      continued: true,
      code: undefined,
    });
    expect(uploaded.body.data?.uploadInfo?.size).toBe(audio.length);
    const noteId = uploaded.body.data!.note!.id;

    const attached = await send(`/api/notes/${noteId}/attachments`, [["timestamp", "3"]], {
      name: "handout.pdf",
      type: "application/pdf",
      bytes: pdf,
    });
    expect([attached.status, attached.continued, attached.body?.code]).toEqual([201, true, undefined]);
    expect(attached.body.data).toMatchObject({ fileName: "handout.pdf", fileSize: pdf.length, mimeType: "application/pdf" });

    const document = await send("/api/documents/upload", [["courseId", user.courseId]], { name: "cells.pdf", type: "application/pdf", bytes: pdf });
    expect([document.status, document.continued, document.body?.code]).toEqual([200, true, undefined]);
    expect(document.body.document).toMatchObject({ fileName: "cells.pdf", fileSize: pdf.length, format: "PDF", courseId: user.courseId });

    const read = await send("/api/documents/upload-syllabus", [["courseId", user.courseId]], {
      name: "syllabus.pdf",
      type: "application/pdf",
      bytes: syllabus,
    });
    expect([read.status, read.continued, read.body?.code]).toEqual([200, true, undefined]);
    expect(read.body.document).toMatchObject({ documentType: "SYLLABUS", fileSize: syllabus.length, processed: true });

    // The records are the caller's, as for an upload sent without the header.
    const note = requireStatus(await api("GET", `/api/notes/${noteId}`, { token: user.token }), 200, "GET /api/notes/{id}").body.data;
    expect(note.metadata).toMatchObject({ fileSize: audio.length });
    const documents = requireStatus(
      await api("GET", `/api/documents?courseId=${user.courseId}`, { token: user.token }),
      200,
      "GET /api/documents",
    ).body.data.map((entry: { id: string }) => entry.id);
    expect(documents).toEqual(expect.arrayContaining([document.body.document?.id, read.body.document?.id]));
  }, 60_000);

  it("still refuses a request without a session", async () => {
    const answer = await postExpectingContinue(stack.gatewayUrl, "made-up-session-token", "/api/documents/upload", [["courseId", "x"]], {
      name: "cells.pdf",
      type: "application/pdf",
      bytes: pdf,
    });
    expect([answer.status, answer.body?.code]).toEqual([401, "UNAUTHORIZED"]);
  });
});
