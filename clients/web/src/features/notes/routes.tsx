import type { RouteObject } from "react-router";

/** The notes pages (paths under the app's basename). */
export const noteRoutes: RouteObject[] = [];
