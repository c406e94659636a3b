import type { RouteObject } from "react-router";

/** The study pages (paths under the app's basename). */
export const studyRoutes: RouteObject[] = [];
