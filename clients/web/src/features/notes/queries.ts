import { queryOptions } from "@tanstack/react-query";
import { api, data } from "../../lib/api";

/** A note with its transcript: read by the note page, and started by its route while the page's code loads. */
export const noteQuery = (noteId: string) =>
  queryOptions({
    queryKey: ["notes", noteId],
    queryFn: () => data(api.GET("/api/notes/{id}", { params: { path: { id: noteId } } })),
    // While the import runs, the transcript arrives on its own.
    refetchInterval: (query) => {
      const status = query.state.data?.transcriptionStatus;
      return status === "PENDING" || status === "PROCESSING" ? 5000 : false;
    },
  });
