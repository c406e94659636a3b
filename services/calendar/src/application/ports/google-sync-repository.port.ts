import type { EventEnvelope } from "@study/events/envelope";
import type { CalendarEvent } from "../../domain/calendar-event";
import type { ImportDefaults, ImportedFields } from "../../domain/google-event";

/** A Google event to bring in: its fields, and what a new study event made from it starts with. */
export interface IncomingGoogleEvent {
  googleEventId: string;
  /** Set when the event was pushed from this study event: the two are the same event. */
  studyEventId?: string;
  fields: ImportedFields;
  defaults: ImportDefaults;
  /** False: update the user's event if there is one, but create none (outside the sync window). */
  mayCreate: boolean;
}

export type ChangeKind = "created" | "updated" | "deleted";

export interface AppliedChanges {
  created: CalendarEvent[];
  updated: CalendarEvent[];
  deleted: CalendarEvent[];
}

/** Persistence of the Google sync: its state per user, and Google's changes applied in one transaction each. */
export interface GoogleSyncRepository {
  /** The user's stored sync token (null: none yet, a full sync is next). */
  syncToken(userId: string): Promise<string | null>;
  saveSyncToken(userId: string, syncToken: string | null): Promise<void>;
  /**
   * In one transaction: links pushed events to their Google copies (studyEventId), creates or updates the user's
   * event of each incoming Google event (by Google id; an update that changes nothing is no change), deletes the
   * user's events with the given Google ids, and stores the events `events` builds for every change.
   */
  applyChanges(
    userId: string,
    calendarId: string,
    changes: { incoming: IncomingGoogleEvent[]; deletedGoogleIds: string[] },
    events: (kind: ChangeKind, event: CalendarEvent) => EventEnvelope,
  ): Promise<AppliedChanges>;
  /**
   * Deletes the user's events linked to Google that start in [from, to) and whose Google id is not in `seen` (a
   * full sync did not find them: they were deleted in Google while the sync token was lost), with their events.
   */
  deleteUnseen(
    userId: string,
    window: { from: Date; to: Date },
    seen: ReadonlySet<string>,
    events: (event: CalendarEvent) => EventEnvelope,
  ): Promise<CalendarEvent[]>;
  /**
   * Records the Google copy the push made of an event, without a change of the event itself (no new version,
   * no event). False when the event is gone or already linked.
   */
  linkGoogleCopy(userId: string, eventId: string, googleEventId: string, googleCalendarId: string): Promise<boolean>;
}
