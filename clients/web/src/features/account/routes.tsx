import type { RouteObject } from "react-router";

/** The account pages (paths under the app's basename). */
export const accountRoutes: RouteObject[] = [{ path: "account", lazy: async () => ({ Component: (await import("./account-page")).AccountPage }) }];
