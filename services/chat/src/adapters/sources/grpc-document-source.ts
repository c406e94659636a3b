import { documents } from "@study/contracts";
import { createClient } from "@study/grpc";
import { AppError } from "@study/platform/errors";
import type { DocumentSource, DocumentText } from "../../application/ports/material-sources.port";

/**
 * The documents service's GetDocumentText: NOT_FOUND (unknown, another user's) is `gone`; DOCUMENT_NOT_PROCESSED
 * (not processed yet, or its processing failed) is `noText`.
 */
export class GrpcDocumentSource implements DocumentSource {
  private readonly client;

  constructor(address: string, deadlineMs = 30_000) {
    this.client = createClient(documents.DocumentsServiceClient, documents.DocumentsServiceService, address, { deadlineMs });
  }

  async getDocumentText(userId: string, documentId: string): Promise<DocumentText> {
    try {
      const text = await this.client.getDocumentText({ userId, documentId });
      return {
        found: {
          documentId: text.documentId || documentId,
          courseId: text.courseId,
          title: text.title,
          pages: text.pages.map((page) => ({ number: page.number, text: page.text })),
        },
      };
    } catch (error) {
      if (error instanceof AppError && error.kind === "not_found") return { gone: true };
      if (error instanceof AppError && error.code === "DOCUMENT_NOT_PROCESSED") return { noText: true };
      throw error;
    }
  }

  close(): void {
    this.client.close();
  }
}
