import type { RouteObject } from "react-router";
import { prefetch } from "../../lib/query-client";
import { noteQuery } from "./queries";

/** The notes pages (paths under the app's basename): importing a note into a course, and a note with its transcript. */
export const noteRoutes: RouteObject[] = [
  { path: "courses/:courseId/notes/new", lazy: async () => ({ Component: (await import("./import-page")).ImportPage }) },
  {
    path: "notes/:noteId",
    // The note (and its transcript) is asked for while the page's code loads, not after it renders.
    loader: ({ params }) => {
      if (params.noteId) prefetch(noteQuery(params.noteId));
      return null;
    },
    lazy: async () => ({ Component: (await import("./note-page")).NotePage }),
  },
];
