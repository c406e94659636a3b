import { PreparedStatement, type Queryable } from "@study/db";
import type { AuthState } from "../../domain/session";
import type { SessionRepository } from "../../application/ports/sessions.port";
import { hashToken } from "../token-hash";

interface SessionRow {
  id: string;
  token: string;
  userId: string;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  ipAddress: string | null;
  userAgent: string | null;
  userName: string;
  userEmail: string;
  userEmailVerified: boolean;
  userImage: string | null;
  userCreatedAt: Date;
  userUpdatedAt: Date;
}

/** Every authenticated request runs this: prepared once per connection. */
const SESSION_WITH_USER = new PreparedStatement<[token: string], SessionRow>(
  "gateway.session_with_user",
  `SELECT s.id, s.token, s."userId", s."expiresAt", s."createdAt", s."updatedAt", s."ipAddress", s."userAgent",
          u.name AS "userName", u.email AS "userEmail", u."emailVerified" AS "userEmailVerified", u.image AS "userImage",
          u."createdAt" AS "userCreatedAt", u."updatedAt" AS "userUpdatedAt"
   FROM "session" s JOIN "user" u ON u.id = s."userId"
   WHERE s.token = $1`,
);
const WAS_EXPIRED = new PreparedStatement<[tokenHash: string], { found: number }>(
  "gateway.session_was_expired",
  "SELECT 1 AS found FROM expired_session WHERE token_hash = $1 LIMIT 1",
);

/** Reads better-auth's `session` and `user` tables in one query, and the tombstones of expired sessions. */
export class PgSessionRepository implements SessionRepository {
  constructor(private readonly db: Queryable) {}

  async findWithUser(token: string): Promise<AuthState | null> {
    const [row] = await SESSION_WITH_USER.rows(this.db, token);
    if (!row) return null;
    return {
      session: {
        id: row.id,
        token: row.token,
        userId: row.userId,
        expiresAt: row.expiresAt,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
        ipAddress: row.ipAddress,
        userAgent: row.userAgent,
      },
      user: {
        id: row.userId,
        name: row.userName,
        email: row.userEmail,
        emailVerified: row.userEmailVerified,
        image: row.userImage,
        createdAt: row.userCreatedAt,
        updatedAt: row.userUpdatedAt,
      },
    };
  }

  async wasExpired(token: string): Promise<boolean> {
    const rows = await WAS_EXPIRED.rows(this.db, hashToken(token));
    return rows.length > 0;
  }
}
