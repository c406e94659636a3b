import { AppError } from "@study/platform";
import type { RequestHandler } from "express";
import { z } from "zod";
import { errorEnvelope, messageEnvelope, route, type RouteSpec } from "../../../http/api";
import { sendMessage } from "../../../http/envelope";
import type { ConfirmEmail, RequestEmailVerification } from "../../application/email-verification";
import type { BetterAuthCredentials } from "../better-auth/library-adapters";

const tokenSchema = z.string().min(10, "is not a valid token").max(2048);
const invalidToken = () =>
  AppError.validation("This link is invalid, expired or already used", [{ field: "token", message: "is invalid, expired or already used" }]);

/**
 * E-mail verification and password reset. Tokens are single-use and expire: the verification token is the
 * library's signed JWT, made single-use by a ledger of used tokens; the reset token lives in the library's
 * verification table and is deleted when used.
 */
export function emailRoutes(deps: {
  requestVerification: RequestEmailVerification;
  confirmEmail: ConfirmEmail;
  credentials: BetterAuthCredentials;
  clientUrl: string;
  limit: RequestHandler;
}): RouteSpec[] {
  const { credentials } = deps;
  const tag = "Authentication";
  return [
    route({
      method: "post",
      path: "/api/auth/verify-email/request",
      tag,
      summary: "Send (again) the e-mail that confirms the caller's address",
      auth: true,
      before: [deps.limit],
      responses: {
        200: { description: "Mail sent", schema: messageEnvelope },
        409: { description: "Already confirmed (EMAIL_ALREADY_VERIFIED)", schema: errorEnvelope },
      },
      async handler({ user, res }) {
        await deps.requestVerification.execute(user);
        sendMessage(res, `A confirmation link was sent to ${user.email}`);
      },
    }),
    route({
      method: "get",
      path: "/api/auth/verify-email",
      tag,
      summary: "Confirm an e-mail address (the link in the mail); redirects to the client",
      auth: false,
      query: z.object({ token: tokenSchema }),
      responses: {
        302: { description: "To `CLIENT_URL/email-verified`, with `?error=INVALID_TOKEN|TOKEN_EXPIRED` when the link does not work" },
      },
      async handler({ query, res }) {
        const target = new URL("/email-verified", deps.clientUrl);
        const refusal = await deps.confirmEmail.execute(query.token);
        if (refusal) target.searchParams.set("error", refusal);
        res.redirect(302, target.toString());
      },
    }),
    route({
      method: "post",
      path: "/api/auth/password-reset/request",
      tag,
      summary: "Mail a password-reset link (the answer is the same whether or not the address has an account)",
      auth: false,
      before: [deps.limit],
      body: z.object({
        email: z
          .email("must be a valid e-mail address")
          .max(255)
          .transform((v) => v.toLowerCase()),
      }),
      responses: {
        200: { description: "Accepted", schema: messageEnvelope },
        429: { description: "Too many attempts (RATE_LIMITED)", schema: errorEnvelope },
      },
      async handler({ body, res }) {
        await credentials.requestPasswordReset(body.email);
        sendMessage(res, "If an account exists for this address, a reset link is on its way");
      },
    }),
    route({
      method: "post",
      path: "/api/auth/password-reset/confirm",
      tag,
      summary: "Set a new password with the token from the reset link; signs out every session",
      auth: false,
      before: [deps.limit],
      body: z.object({
        token: tokenSchema,
        newPassword: z.string().min(8, "must be at least 8 characters").max(128, "must be at most 128 characters"),
      }),
      responses: {
        200: { description: "Password changed", schema: messageEnvelope },
        400: { description: "Invalid, expired or used token (VALIDATION_ERROR on token)", schema: errorEnvelope },
      },
      async handler({ body, res }) {
        if (!(await credentials.resetPassword(body.token, body.newPassword))) throw invalidToken();
        sendMessage(res, "Your password was changed. Please sign in again.");
      },
    }),
  ];
}
