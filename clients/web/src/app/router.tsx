import { createBrowserRouter, Navigate, type RouteObject } from "react-router";
import { accountRoutes } from "../features/account/routes";
import { authRoutes } from "../features/auth/routes";
import { courseRoutes } from "../features/courses/routes";
import { jobRoutes } from "../features/jobs/routes";
import { noteRoutes } from "../features/notes/routes";
import { studyRoutes } from "../features/study/routes";
import { Layout, NotFound, RequireSession, RouteError } from "./layout";

/** The router's basename: the gateway serves the app at /app/ (vite.config.ts `base`). */
export const BASENAME = "/app";

export const routes: RouteObject[] = [
  {
    element: <Layout />,
    errorElement: <RouteError />,
    children: [
      // Pages anyone may open: sign-in, sign-up, and those the backend links to (e-mail, reset, OAuth error).
      ...authRoutes,
      {
        element: <RequireSession />,
        children: [
          { index: true, element: <Navigate to="/courses" replace /> },
          ...courseRoutes,
          ...noteRoutes,
          ...jobRoutes,
          ...studyRoutes,
          ...accountRoutes,
        ],
      },
      { path: "*", element: <NotFound /> },
    ],
  },
];

export const createAppRouter = () => createBrowserRouter(routes, { basename: BASENAME });
