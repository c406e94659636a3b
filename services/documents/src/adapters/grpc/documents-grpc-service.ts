import { documents as api } from "@study/contracts";
import { bindUnaryHandlers, pageInfo } from "@study/grpc";
import type { Logger } from "@study/platform";
import type { DeleteDocument } from "../../application/delete-document";
import type { GetDocument, GetDocumentText } from "../../application/get-document";
import type { ListDocuments } from "../../application/list-documents";
import type { SearchDocuments, SearchType } from "../../application/search-documents";
import { documentTypeFromProto, documentTypeToProto, toProtoDocument } from "./proto-mapping";

export interface DocumentsUseCases {
  listDocuments: ListDocuments;
  getDocument: GetDocument;
  getDocumentText: GetDocumentText;
  deleteDocument: DeleteDocument;
  searchDocuments: SearchDocuments;
}

const SEARCH_TYPES_TO_PROTO: Record<SearchType, api.SearchType> = {
  keyword: api.SearchType.SEARCH_TYPE_KEYWORD,
  semantic: api.SearchType.SEARCH_TYPE_SEMANTIC,
  hybrid: api.SearchType.SEARCH_TYPE_HYBRID,
};

/** UNSPECIFIED: the default (keyword); an unknown number is passed on as such, for the use case to refuse. */
function searchTypeFromProto(value: api.SearchType): string | undefined {
  if (value === api.SearchType.SEARCH_TYPE_UNSPECIFIED) return undefined;
  const known = Object.entries(SEARCH_TYPES_TO_PROTO).find(([, number]) => number === value);
  return known ? known[0] : String(value);
}

export function documentsGrpcService(useCases: DocumentsUseCases, logger: Logger): api.DocumentsServiceServer {
  return bindUnaryHandlers(logger, api.DocumentsServiceService, {
    listDocuments: async (request) => {
      const page = await useCases.listDocuments.execute(request.userId, {
        courseId: request.courseId,
        documentType: documentTypeFromProto(request.documentType),
        limit: request.page?.limit,
        offset: request.page?.offset,
      });
      return {
        documents: page.documents.map((document) => toProtoDocument(document, { withText: false })),
        page: pageInfo({ limit: page.limit, offset: page.offset, total: page.total, count: page.documents.length }),
      };
    },
    getDocument: async (request) => ({
      document: toProtoDocument(await useCases.getDocument.execute(request.userId, request.courseId, request.documentId), { withText: true }),
    }),
    deleteDocument: async (request) => {
      await useCases.deleteDocument.execute(request.userId, request.courseId, request.documentId);
      return {};
    },
    searchDocuments: async (request) => {
      const answer = await useCases.searchDocuments.execute({
        userId: request.userId,
        courseId: request.courseId,
        query: request.query,
        documentTypes: request.documentTypes.map((type) => documentTypeFromProto(type) ?? String(type)),
        tags: request.tags,
        // proto3 sends an unset limit as 0: the default page size.
        limit: request.page?.limit || undefined,
        offset: request.page?.offset,
        searchType: searchTypeFromProto(request.searchType),
      });
      return {
        results: answer.results.map((result) => ({
          ...result,
          documentType: documentTypeToProto(result.documentType),
          author: result.author ?? undefined,
        })),
        totalCount: answer.totalCount,
        suggestions: answer.suggestions,
        searchType: SEARCH_TYPES_TO_PROTO[answer.searchType],
      };
    },
    getDocumentText: async (request) => {
      const { document, pages } = await useCases.getDocumentText.execute(request.userId, request.documentId);
      return { documentId: document.id, courseId: document.courseId, title: document.title, pages };
    },
  });
}
