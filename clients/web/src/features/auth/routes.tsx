import type { RouteObject } from "react-router";

/** Pages anyone may open: signing in and up, and those the backend's e-mails and redirects link to. */
export const authRoutes: RouteObject[] = [
  { path: "sign-in", lazy: async () => ({ Component: (await import("./sign-in")).SignInPage }) },
  { path: "sign-up", lazy: async () => ({ Component: (await import("./sign-up")).SignUpPage }) },
  { path: "email-verified", lazy: async () => ({ Component: (await import("./email-verified")).EmailVerifiedPage }) },
  { path: "reset-password", lazy: async () => ({ Component: (await import("./reset-password")).ResetPasswordPage }) },
  { path: "auth/error", lazy: async () => ({ Component: (await import("./auth-error")).AuthErrorPage }) },
];
