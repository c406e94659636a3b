import type { RouteObject } from "react-router";

/** The jobs pages (paths under the app's basename). */
export const jobRoutes: RouteObject[] = [{ path: "jobs", lazy: async () => ({ Component: (await import("./jobs-page")).JobsPage }) }];
