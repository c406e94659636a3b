import { createHash, randomBytes } from "node:crypto";
import { AppError } from "@study/platform/errors";
import { requireUserId } from "@study/platform/ids";
import type { FeedEventSource, FeedRenderer, FeedTokenRepository } from "./ports/feed.port";

/** 32 random bytes, base64url: 43 characters, 256 bits of secret. */
export const newFeedToken = (): string => randomBytes(32).toString("base64url");
export const hashFeedToken = (token: string): string => createHash("sha256").update(token, "utf8").digest("hex");

/** The feed covers events from 90 days back to a year ahead: what a calendar app shows, bounded in size. */
export const FEED_WINDOW = { daysBack: 90, daysAhead: 365 } as const;
const DAY_MS = 24 * 60 * 60 * 1000;
export const FEED_CALENDAR_NAME = "Study Service — Calendar";

const feedNotFound = (): AppError => AppError.notFound("Calendar feed");

export class GetFeedToken {
  constructor(private readonly tokens: Pick<FeedTokenRepository, "findOrCreate">) {}

  /** The user's feed token, made on the first call; two first calls at once still give one token. */
  async execute(userId: string): Promise<string> {
    requireUserId(userId);
    const token = newFeedToken();
    return this.tokens.findOrCreate(userId, { token, tokenHash: hashFeedToken(token) });
  }
}

export class RotateFeedToken {
  constructor(private readonly tokens: Pick<FeedTokenRepository, "replace">) {}

  /** A new token for the user; the previous one finds nothing from now on. */
  async execute(userId: string): Promise<string> {
    requireUserId(userId);
    const token = newFeedToken();
    await this.tokens.replace(userId, { token, tokenHash: hashFeedToken(token) });
    return token;
  }
}

export class RenderFeed {
  constructor(
    private readonly tokens: Pick<FeedTokenRepository, "findUserByHash">,
    private readonly events: FeedEventSource,
    private readonly renderer: FeedRenderer,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The iCalendar document of the feed the token names; NOT_FOUND for an unknown or rotated token. */
  async execute(token: string): Promise<string> {
    if (!token) throw feedNotFound();
    const userId = await this.tokens.findUserByHash(hashFeedToken(token));
    if (!userId) throw feedNotFound();
    const now = this.now().getTime();
    const from = new Date(now - FEED_WINDOW.daysBack * DAY_MS);
    const to = new Date(now + FEED_WINDOW.daysAhead * DAY_MS);
    const events = await this.events.listOverlapping(userId, from, to);
    return this.renderer.render({ name: FEED_CALENDAR_NAME, events });
  }
}
