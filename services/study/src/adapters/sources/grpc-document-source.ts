import { documents } from "@study/contracts";
import { createClient } from "@study/grpc";
import type { CurrentDocument, DocumentSource } from "../../application/ports/generation-sources.port";

/**
 * The documents service's GetDocumentText: its NOT_FOUND (unknown, another user's) and DOCUMENT_NOT_PROCESSED (not
 * processed yet, or its processing failed) are passed on as they are, the user's answer.
 */
export class GrpcDocumentSource implements DocumentSource {
  private readonly client;

  /** A long document's text takes a while to read and send. */
  constructor(address: string, deadlineMs = 30_000) {
    this.client = createClient(documents.DocumentsServiceClient, documents.DocumentsServiceService, address, { deadlineMs });
  }

  async getDocumentText(userId: string, documentId: string): Promise<CurrentDocument> {
    const text = await this.client.getDocumentText({ userId, documentId });
    return {
      documentId: text.documentId || documentId,
      courseId: text.courseId,
      title: text.title,
      pages: text.pages.map((page) => ({ number: page.number, text: page.text })),
    };
  }

  close(): void {
    this.client.close();
  }
}
