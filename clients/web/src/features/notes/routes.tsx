import type { RouteObject } from "react-router";

/** The notes pages (paths under the app's basename): importing a note into a course, and a note with its transcript. */
export const noteRoutes: RouteObject[] = [
  { path: "courses/:courseId/notes/new", lazy: async () => ({ Component: (await import("./import-page")).ImportPage }) },
  { path: "notes/:noteId", lazy: async () => ({ Component: (await import("./note-page")).NotePage }) },
];
