import type { FeedEventSource, FeedTokenRepository } from "../../application/ports/feed.port";
import type { CalendarEvent } from "../../domain/calendar-event";
import type { PrismaClient } from "../../generated/prisma/client";

/** A feed is bounded: beyond this many events in the window, the latest are left out. */
export const FEED_MAX_EVENTS = 5000;

export class PrismaFeedRepository implements FeedTokenRepository, FeedEventSource {
  constructor(private readonly prisma: PrismaClient) {}

  /** ON CONFLICT DO NOTHING then a read: of two first calls at once, one insert wins and both read its token. */
  async findOrCreate(userId: string, candidate: { token: string; tokenHash: string }): Promise<string> {
    await this.prisma.$executeRaw`
      INSERT INTO calendar_feed_token (user_id, token, token_hash) VALUES (${userId}, ${candidate.token}, ${candidate.tokenHash})
      ON CONFLICT (user_id) DO NOTHING`;
    const row = await this.prisma.calendarFeedToken.findUniqueOrThrow({ where: { userId }, select: { token: true } });
    return row.token;
  }

  async replace(userId: string, next: { token: string; tokenHash: string }): Promise<void> {
    await this.prisma.$executeRaw`
      INSERT INTO calendar_feed_token (user_id, token, token_hash) VALUES (${userId}, ${next.token}, ${next.tokenHash})
      ON CONFLICT (user_id) DO UPDATE SET token = excluded.token, token_hash = excluded.token_hash, created_at = now()`;
  }

  async findUserByHash(tokenHash: string): Promise<string | null> {
    const row = await this.prisma.calendarFeedToken.findUnique({ where: { tokenHash }, select: { userId: true } });
    return row?.userId ?? null;
  }

  /** Events overlapping [from, to): starting before `to` and ending (or, without an end, starting) at or after `from`. */
  listOverlapping(userId: string, from: Date, to: Date): Promise<CalendarEvent[]> {
    return this.prisma.calendarEvent.findMany({
      where: {
        userId,
        startDate: { lt: to },
        OR: [{ endDate: { gte: from } }, { endDate: null, startDate: { gte: from } }],
      },
      orderBy: [{ startDate: "asc" }, { id: "asc" }],
      take: FEED_MAX_EVENTS,
    });
  }
}
