import type { Logger } from "@study/platform";
import { isAppError } from "@study/platform/errors";
import { toGoogleEvent } from "../../domain/google-event";
import type { CalendarEventRepository } from "../ports/calendar-event-repository.port";
import { GoogleCalendarError, type GoogleCalendarPort } from "../ports/google-calendar.port";
import type { GoogleSyncRepository } from "../ports/google-sync-repository.port";
import type { ProviderTokens } from "../ports/provider-tokens.port";
import { PRIMARY_CALENDAR } from "./sync-google-calendar";

/**
 * Copies a user's local changes to their Google Calendar, after the fact: the calendar service consumes its own
 * events (written to the outbox with the change), so the local change is stored whatever Google does. A failure
 * that may pass (rate limit, Google or the network down) is thrown, and the consumer retries the event later;
 * one that needs the user (access revoked or not granted) is logged and dropped: the local change stays, and the
 * user's next sync after linking again reconciles the two calendars.
 */
export class PushToGoogle {
  constructor(
    private readonly tokens: ProviderTokens,
    private readonly google: GoogleCalendarPort,
    private readonly events: Pick<CalendarEventRepository, "findOwned">,
    private readonly sync: Pick<GoogleSyncRepository, "linkGoogleCopy">,
    private readonly logger: Logger,
  ) {}

  /** The event was created or changed here: its Google copy is made or brought up to date. */
  async pushChange(userId: string, eventId: string): Promise<void> {
    const event = await this.events.findOwned(userId, eventId);
    // Deleted since: its deletion is pushed on its own.
    if (!event) return;
    const accessToken = await this.accessToken(userId);
    if (accessToken === null) return;
    const write = toGoogleEvent(event);
    const calendarId = event.googleCalendarId ?? PRIMARY_CALENDAR;
    await this.whenPossible(userId, eventId, async () => {
      if (event.googleEventId === null) {
        const id = await this.google.insertEvent(accessToken, calendarId, write).then(
          (inserted) => inserted.id,
          (error: unknown) => {
            // Made by an earlier attempt whose answer was lost: the event is there, with the id we gave it.
            if (error instanceof GoogleCalendarError && error.failure === "duplicate") return write.id;
            throw error;
          },
        );
        await this.sync.linkGoogleCopy(userId, event.id, id, calendarId);
        return;
      }
      try {
        await this.google.patchEvent(accessToken, calendarId, event.googleEventId, write);
      } catch (error) {
        // Deleted in Google meanwhile: Google's deletion wins, and the next sync deletes the event here too.
        if (!(error instanceof GoogleCalendarError && error.failure === "gone")) throw error;
      }
    });
  }

  /** The event was deleted here: so is its Google copy, if it had one. */
  async pushDeletion(userId: string, eventId: string, googleEventId: string, googleCalendarId: string | undefined): Promise<void> {
    const accessToken = await this.accessToken(userId);
    if (accessToken === null) return;
    await this.whenPossible(userId, eventId, async () => {
      try {
        await this.google.deleteEvent(accessToken, googleCalendarId ?? PRIMARY_CALENDAR, googleEventId);
      } catch (error) {
        if (!(error instanceof GoogleCalendarError && error.failure === "gone")) throw error;
      }
    });
  }

  /** The user's Google token; null (nothing to push) when no Google account is linked or Google refuses it. */
  private async accessToken(userId: string): Promise<string | null> {
    try {
      return await this.tokens.googleAccessToken(userId);
    } catch (error) {
      if (isAppError(error) && error.kind === "precondition") {
        this.logger.warn({ userId, code: error.code }, "Google Calendar push skipped: the user must link Google again");
        return null;
      }
      throw error;
    }
  }

  private async whenPossible(userId: string, eventId: string, push: () => Promise<void>): Promise<void> {
    try {
      await push();
    } catch (error) {
      if (error instanceof GoogleCalendarError && (error.failure === "auth" || error.failure === "permission")) {
        this.logger.warn({ userId, eventId, failure: error.failure, status: error.status }, "Google Calendar push refused; the local change stays");
        return;
      }
      throw error;
    }
  }
}
