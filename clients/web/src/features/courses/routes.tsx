import type { RouteObject } from "react-router";

/** The courses pages (paths under the app's basename). */
export const courseRoutes: RouteObject[] = [{ path: "courses", lazy: async () => ({ Component: (await import("./courses-page")).CoursesPage }) }];
