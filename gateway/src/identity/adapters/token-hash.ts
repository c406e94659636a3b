import { createHash } from "node:crypto";

/** Tokens are stored only as their SHA-256 (tombstones of expired sessions, used verification links). */
export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");
