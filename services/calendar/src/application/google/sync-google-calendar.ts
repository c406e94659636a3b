import { requireUserId } from "@study/platform/ids";
import type { CalendarEvent } from "../../domain/calendar-event";
import { importDefaults, importedFields } from "../../domain/google-event";
import { calendarEventCreated, calendarEventDeleted, calendarEventUpdated } from "../calendar-events";
import { GoogleCalendarError, type GoogleCalendarPort, type GoogleEventsQuery } from "../ports/google-calendar.port";
import type { ChangeKind, GoogleSyncRepository, IncomingGoogleEvent } from "../ports/google-sync-repository.port";
import type { ProviderTokens } from "../ports/provider-tokens.port";
import { googleFailure, googleNotLinked } from "./google-errors";

/** The calendar synced: the user's primary calendar. */
export const PRIMARY_CALENDAR = "primary";
const DAY_MS = 86_400_000;
/** A listing that never ends is Google misbehaving, not a calendar: stop there. */
const MAX_PAGES = 200;

export interface SyncWindow {
  /** Days before now from which a full sync imports events. */
  pastDays: number;
  /** Days after now up to which events (and instances of recurring ones) are imported. */
  futureDays: number;
}

export interface SyncResult {
  imported: number;
  updated: number;
  deleted: number;
  fullSync: boolean;
}

const fromGoogle = { fromGoogle: true };
const changeEvent = (kind: ChangeKind, event: CalendarEvent) =>
  kind === "created"
    ? calendarEventCreated(event, fromGoogle)
    : kind === "updated"
      ? calendarEventUpdated(event, fromGoogle)
      : calendarEventDeleted(event, fromGoogle);

/**
 * Brings the user's Google Calendar into their study calendar: a full sync of the window the first time (and
 * whenever Google expires the sync token), then only Google's changes since the last sync. Each page of Google's
 * answer is applied in one transaction, so a failure half-way keeps what was applied and the next sync, which
 * starts from the last stored token, brings the rest.
 */
export class SyncGoogleCalendar {
  constructor(
    private readonly tokens: ProviderTokens,
    private readonly google: GoogleCalendarPort,
    private readonly sync: GoogleSyncRepository,
    private readonly window: SyncWindow,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async execute(userId: string): Promise<SyncResult> {
    requireUserId(userId);
    const accessToken = await this.tokens.googleAccessToken(userId);
    if (accessToken === null) throw googleNotLinked();
    const syncToken = await this.sync.syncToken(userId);
    try {
      if (syncToken !== null) {
        try {
          return await this.run(userId, accessToken, { kind: "incremental", syncToken });
        } catch (error) {
          if (!(error instanceof GoogleCalendarError && error.failure === "sync_token_expired")) throw error;
          // Google forgot the token (it does after a while, or after many changes): start over with a full sync.
          await this.sync.saveSyncToken(userId, null);
        }
      }
      return await this.run(userId, accessToken, { kind: "full", timeMin: this.windowStart(), timeMax: this.windowEnd() });
    } catch (error) {
      throw googleFailure(error);
    }
  }

  private windowStart = () => new Date(this.now().getTime() - this.window.pastDays * DAY_MS);
  private windowEnd = () => new Date(this.now().getTime() + this.window.futureDays * DAY_MS);

  private async run(userId: string, accessToken: string, query: GoogleEventsQuery): Promise<SyncResult> {
    const result: SyncResult = { imported: 0, updated: 0, deleted: 0, fullSync: query.kind === "full" };
    const [windowStart, windowEnd] = [this.windowStart(), this.windowEnd()];
    const seen = new Set<string>();
    let pageToken: string | undefined;
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const page = await this.google.listEvents(accessToken, PRIMARY_CALENDAR, { ...query, pageToken });
      const incoming: IncomingGoogleEvent[] = [];
      const deletedGoogleIds: string[] = [];
      for (const event of page.events) {
        seen.add(event.id);
        const fields = importedFields(event);
        if (fields === null) {
          deletedGoogleIds.push(event.id);
          continue;
        }
        const end = fields.endDate ?? fields.startDate;
        incoming.push({
          googleEventId: event.id,
          studyEventId: event.studyEventId,
          fields,
          defaults: importDefaults(event, fields),
          // An incremental sync reports changes anywhere in time; only the window's events are brought in.
          mayCreate: fields.startDate.getTime() < windowEnd.getTime() && end.getTime() >= windowStart.getTime(),
        });
      }
      const applied = await this.sync.applyChanges(userId, PRIMARY_CALENDAR, { incoming, deletedGoogleIds }, changeEvent);
      result.imported += applied.created.length;
      result.updated += applied.updated.length;
      result.deleted += applied.deleted.length;
      if (page.nextPageToken) {
        pageToken = page.nextPageToken;
        continue;
      }
      if (query.kind === "full") {
        const gone = await this.sync.deleteUnseen(userId, { from: windowStart, to: windowEnd }, seen, (event) => changeEvent("deleted", event));
        result.deleted += gone.length;
      }
      await this.sync.saveSyncToken(userId, page.nextSyncToken ?? null);
      return result;
    }
    throw new GoogleCalendarError("other", `Google's event list did not end after ${MAX_PAGES} pages`);
  }
}
