import type { TransactionalClient } from "@study/db";
import { AppError } from "@study/platform";
import { z } from "zod";
import type { Auth } from "../auth/auth";
import { authHeaders, forwardCookies } from "../auth/routes";
import { currentAuth } from "../auth/session";
import { dataEnvelope, errorEnvelope, messageEnvelope, route, type RouteSpec } from "../http/api";
import { sendData, sendMessage } from "../http/envelope";

const linkedAccountSchema = z
  .object({
    id: z.string().describe("Pass this as accountId to POST /api/account/unlink"),
    providerId: z.string().describe('"credential" for e-mail and password, otherwise the identity provider (e.g. "google")'),
    accountId: z.string().describe("The user's id at the provider"),
    createdAt: z.iso.datetime(),
    accessToken: z.boolean().describe("Whether a provider access token is stored"),
    refreshToken: z.boolean().describe("Whether a provider refresh token is stored"),
  })
  .meta({ id: "LinkedAccount" });
const activeSessionSchema = z
  .object({
    id: z.string(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
    ipAddress: z.string().nullable(),
    userAgent: z.string().nullable(),
  })
  .meta({ id: "ActiveSession" });

/**
 * The caller's linked accounts (ways to sign in) and active sessions. Reads and session revocation go through
 * the auth library; unlinking is one SQL transaction because the library's own unlink needs a session younger
 * than a day and checks "not the last account" without a lock (two parallel unlinks could remove both).
 */
export function accountRoutes(deps: { auth: Auth; db: TransactionalClient }): RouteSpec[] {
  const { auth, db } = deps;
  const tag = "Account";
  return [
    route({
      method: "get",
      path: "/api/account/details",
      tag,
      summary: "The caller's linked accounts and active sessions",
      auth: true,
      responses: {
        200: {
          description: "Accounts oldest first, sessions most recently used first; no tokens are returned",
          schema: dataEnvelope(z.object({ accounts: z.array(linkedAccountSchema), sessions: z.array(activeSessionSchema) })),
        },
      },
      async handler({ res }) {
        const { user } = currentAuth(res);
        const { internalAdapter } = await auth.$context;
        const [accounts, sessions] = await Promise.all([internalAdapter.findAccounts(user.id), internalAdapter.listSessions(user.id)]);
        sendData(
          res,
          200,
          {
            accounts: accounts
              .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
              .map((account) => ({
                id: account.id,
                providerId: account.providerId,
                accountId: account.accountId,
                createdAt: account.createdAt,
                accessToken: Boolean(account.accessToken),
                refreshToken: Boolean(account.refreshToken),
              })),
            sessions: sessions
              .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())
              .map((session) => ({
                id: session.id,
                createdAt: session.createdAt,
                updatedAt: session.updatedAt,
                expiresAt: session.expiresAt,
                ipAddress: session.ipAddress ?? null,
                userAgent: session.userAgent ?? null,
              })),
          },
          "Account details",
        );
      },
    }),
    route({
      method: "post",
      path: "/api/account/unlink",
      tag,
      summary: "Unlink one of the caller's accounts (a way to sign in); the last one cannot be unlinked",
      auth: true,
      body: z.object({ accountId: z.string().min(1).max(255).describe("The `id` of an entry of GET /api/account/details") }),
      responses: {
        200: { description: "Unlinked", schema: messageEnvelope },
        400: { description: "It is the last way to sign in (LAST_SIGN_IN_METHOD), or invalid input", schema: errorEnvelope },
        404: { description: "No such account of the caller (NOT_FOUND)", schema: errorEnvelope },
      },
      async handler({ body, res }) {
        const { user } = currentAuth(res);
        await db.$transaction(async (tx) => {
          // Serializes unlinks of one user, so that the count below cannot be raced to zero.
          await tx.$queryRawUnsafe('SELECT 1 FROM "user" WHERE id = $1 FOR UPDATE', user.id);
          const accounts = await tx.$queryRawUnsafe<{ id: string }[]>('SELECT id FROM account WHERE "userId" = $1', user.id);
          if (!accounts.some((account) => account.id === body.accountId)) throw AppError.notFound("Account");
          if (accounts.length === 1) {
            throw new AppError("precondition", "LAST_SIGN_IN_METHOD", "This is your only way to sign in: link another one before unlinking it");
          }
          await tx.$executeRawUnsafe("DELETE FROM account WHERE id = $1", body.accountId);
        });
        sendMessage(res, "Account unlinked");
      },
    }),
    route({
      method: "post",
      path: "/api/account/revoke-session",
      tag,
      summary: "End one of the caller's sessions (its token is refused from now on)",
      auth: true,
      body: z.object({ sessionId: z.string().min(1).max(255).describe("The `id` of an entry of GET /api/account/details") }),
      responses: {
        200: { description: "Revoked (the caller's own current session too: then its cookie is cleared)", schema: messageEnvelope },
        404: { description: "No such active session of the caller (NOT_FOUND)", schema: errorEnvelope },
      },
      async handler({ body, req, res }) {
        const { user } = currentAuth(res);
        const { internalAdapter } = await auth.$context;
        const session = (await internalAdapter.listSessions(user.id)).find((candidate) => candidate.id === body.sessionId);
        if (!session) throw AppError.notFound("Session");
        const result = await auth.api.revokeSession({ body: { token: session.token }, headers: authHeaders(req), returnHeaders: true });
        forwardCookies(result.headers, res);
        sendMessage(res, "Session revoked");
      },
    }),
  ];
}
