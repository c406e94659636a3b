import type { RouteObject } from "react-router";

/** The account pages (paths under the app's basename). */
export const accountRoutes: RouteObject[] = [];
