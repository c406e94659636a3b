import type { RouteObject } from "react-router";

/** The courses pages (paths under the app's basename). */
export const courseRoutes: RouteObject[] = [
  { path: "courses", lazy: async () => ({ Component: (await import("./courses-page")).CoursesPage }) },
  { path: "courses/new", lazy: async () => ({ Component: (await import("./course-edit-page")).NewCoursePage }) },
  { path: "courses/:courseId", lazy: async () => ({ Component: (await import("./course-page")).CoursePage }) },
  { path: "courses/:courseId/edit", lazy: async () => ({ Component: (await import("./course-edit-page")).EditCoursePage }) },
];
