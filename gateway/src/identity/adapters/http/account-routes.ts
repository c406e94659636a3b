import { z } from "zod";
import { dataEnvelope, errorEnvelope, messageEnvelope, route, type RouteSpec } from "../../../http/api";
import { sendData, sendMessage } from "../../../http/envelope";
import type { AccountDetails } from "../../application/account-details";
import type { RevokeSession } from "../../application/revoke-session";
import type { UnlinkAccount } from "../../application/unlink-account";
import type { SetCookies } from "../better-auth/library-adapters";
import { sendCookies } from "./library-headers";

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

/** The caller's linked accounts (ways to sign in) and active sessions. */
export function accountRoutes(deps: {
  accountDetails: AccountDetails;
  unlinkAccount: UnlinkAccount;
  revokeSession: RevokeSession<SetCookies>;
}): RouteSpec[] {
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
      async handler({ userId, res }) {
        const { accounts, sessions } = await deps.accountDetails.execute(userId);
        sendData(
          res,
          200,
          {
            accounts: accounts.map((account) => ({
              id: account.id,
              providerId: account.providerId,
              accountId: account.accountId,
              createdAt: account.createdAt,
              accessToken: account.hasAccessToken,
              refreshToken: account.hasRefreshToken,
            })),
            sessions,
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
      async handler({ userId, body, res }) {
        await deps.unlinkAccount.execute(userId, body.accountId);
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
      async handler({ userId, authSession, body, res }) {
        sendCookies(res, await deps.revokeSession.execute({ userId, token: authSession.token }, body.sessionId));
        sendMessage(res, "Session revoked");
      },
    }),
  ];
}
