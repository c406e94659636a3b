import { formatCents } from "@study/platform/money";
import { AppError, type FieldViolation } from "@study/platform/errors";

export const NOTIFICATION_TYPES = ["SYSTEM", "REMINDER", "ALERT", "MESSAGE"] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** An in-app notification as the domain sees it. */
export interface Notification {
  id: string;
  userId: string;
  type: NotificationType;
  content: string;
  read: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface NotificationDraft {
  /** null when the caller named no known type. */
  type: NotificationType | null;
  content: string;
}

/** Maximum length (characters) of a notification's content, after trimming. */
export const MAX_CONTENT_LENGTH = 2000;

/** Read notifications are removed once they are older than this many days (see {@link isPastRetention}). */
export const DEFAULT_RETENTION_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;

/** A new unread notification; every problem with the draft becomes one {field, message}. */
export function createNotification(id: string, userId: string, draft: NotificationDraft, now: Date): Notification {
  const content = draft.content.trim();
  const violations: FieldViolation[] = [];
  if (draft.type === null) violations.push({ field: "type", message: `must be one of ${NOTIFICATION_TYPES.join(", ")}` });
  if (content.length === 0) violations.push({ field: "content", message: "must not be empty" });
  // Characters, not UTF-16 code units: an emoji counts once.
  else if ([...content].length > MAX_CONTENT_LENGTH) {
    violations.push({ field: "content", message: `must be at most ${MAX_CONTENT_LENGTH} characters` });
  }
  if (draft.type === null || violations.length > 0) throw AppError.validation("Invalid notification", violations);
  return { id, userId, type: draft.type, content, read: false, createdAt: now, updatedAt: now };
}

/** Reading an already read notification changes nothing, so its updatedAt stays as it was. */
export function markAsRead(notification: Notification, now: Date): Notification {
  return notification.read ? notification : { ...notification, read: true, updatedAt: now };
}

/** Longest part of a user's name quoted in the welcome message, so any name fits the content limit. */
const MAX_GREETED_NAME_LENGTH = 100;

/** Content of the SYSTEM notification that welcomes a newly registered user. */
export function welcomeMessage(name: string): string {
  const greetedName = [...name.trim()].slice(0, MAX_GREETED_NAME_LENGTH).join("");
  const greeting = greetedName ? `Welcome to Study, ${greetedName}!` : "Welcome to Study!";
  return `${greeting} Add your first course to start organizing your studies.`;
}

/** Longest part of a course name quoted in a message. */
const MAX_QUOTED_COURSE_NAME_LENGTH = 255;

/**
 * Content of the SYSTEM notification confirming a course deletion. It names everything the deletion removes
 * (other services do it in the background on `courses.course.deleted`): notes (media), documents (documents),
 * study materials (study) and chat sessions (chat); calendar events are kept without the course (calendar
 * detaches them), and the message says so, so that the user knows what is gone and what is not.
 */
export function courseDeletedMessage(courseName: string): string {
  const name = [...courseName.trim()].slice(0, MAX_QUOTED_COURSE_NAME_LENGTH).join("");
  return (
    `Course “${name || "Untitled"}” was deleted, together with its notes, documents, study materials and chat sessions. ` +
    "Its calendar events stay in your calendar without the course."
  );
}

/** Longest part of a note title quoted in a message (a note title has at most 255 characters). */
const MAX_QUOTED_NOTE_TITLE_LENGTH = 255;
/** Longest part of an error text quoted in a failure message, so that the message fits the content limit. */
const MAX_QUOTED_ERROR_LENGTH = 1000;

const quoted = (text: string, max: number, fallback: string) => [...text.trim()].slice(0, max).join("") || fallback;

/** SYSTEM notification: a video or audio import was accepted and its processing started. */
export function importStartedMessage(noteTitle: string): string {
  return `Processing started for “${quoted(noteTitle, MAX_QUOTED_NOTE_TITLE_LENGTH, "Untitled")}”. We will let you know when it is ready.`;
}

/** SYSTEM notification: the lecture was transcribed and processed. */
export function noteReadyMessage(noteTitle: string): string {
  return `“${quoted(noteTitle, MAX_QUOTED_NOTE_TITLE_LENGTH, "Untitled")}” is ready to view: its transcript and summary are available.`;
}

/** ALERT notification: processing the lecture failed, with the error text. */
export function importFailedMessage(noteTitle: string, errorMessage: string): string {
  const title = quoted(noteTitle, MAX_QUOTED_NOTE_TITLE_LENGTH, "Untitled");
  return `Processing of “${title}” failed: ${quoted(errorMessage, MAX_QUOTED_ERROR_LENGTH, "unknown error")}`;
}

/** Longest part of a document title or a file name quoted in a message (a document title has at most 255 characters). */
const MAX_QUOTED_DOCUMENT_TITLE_LENGTH = 255;

const documentTitle = (title: string) => quoted(title, MAX_QUOTED_DOCUMENT_TITLE_LENGTH, "Untitled");
const calendarEvents = (count: number) => (count === 1 ? "1 calendar event" : `${count} calendar events`);

/** SYSTEM notification: an uploaded document is stored and its text extraction started. */
export function documentProcessingStartedMessage(title: string): string {
  return `Processing started for the document “${documentTitle(title)}”. We will let you know when it is ready to search.`;
}

/** SYSTEM notification: the document's text was extracted and indexed. */
export function documentProcessedMessage(title: string): string {
  return `The document “${documentTitle(title)}” was processed and indexed: you can now search it and generate study materials from it.`;
}

/** ALERT notification: extracting the document's text failed, with the error text. */
export function documentFailedMessage(title: string, errorMessage: string): string {
  const error = quoted(errorMessage, MAX_QUOTED_ERROR_LENGTH, "unknown error");
  return `Processing of the document “${documentTitle(title)}” failed: ${error}`;
}

/**
 * SYSTEM notification: a syllabus was processed, with the number of calendar events made from it (new ones only:
 * uploading the same syllabus again creates none).
 */
export function syllabusProcessedMessage(title: string, eventsCreated: number): string {
  const created = eventsCreated > 0 ? `${calendarEvents(eventsCreated)} created` : "no new calendar events created";
  return `The syllabus “${documentTitle(title)}” was processed: ${created}.`;
}

/** SYSTEM notification: calendar events were created from a syllabus for its course (the event names no course). */
export function syllabusEventsCreatedMessage(title: string, eventsCreated: number): string {
  const verb = eventsCreated === 1 ? "was" : "were";
  return `${calendarEvents(eventsCreated)} ${verb} added to your calendar for the course of the syllabus “${documentTitle(title)}”.`;
}

/** ALERT notification: a syllabus upload could not be processed (nothing was kept), with the error text. */
export function syllabusFailedMessage(fileName: string, errorMessage: string): string {
  const error = quoted(errorMessage, MAX_QUOTED_ERROR_LENGTH, "unknown error");
  return `The syllabus “${documentTitle(fileName)}” could not be processed and was not saved: ${error}`;
}

/** Longest parts of a calendar event's title and location quoted in a reminder (their limits in the calendar). */
const MAX_QUOTED_EVENT_TITLE_LENGTH = 255;
const MAX_QUOTED_LOCATION_LENGTH = 255;

/**
 * REMINDER notification of a calendar event: its title, start and location. Times are given in UTC (the
 * service does not know the user's time zone), with the date, since a reminder may come up to four weeks ahead.
 */
export function reminderMessage(eventTitle: string, startDate: Date, location: string | null): string {
  const iso = startDate.toISOString();
  const place = location?.trim() ? ` (${quoted(location, MAX_QUOTED_LOCATION_LENGTH, "")})` : "";
  const title = quoted(eventTitle, MAX_QUOTED_EVENT_TITLE_LENGTH, "Untitled");
  return `Reminder: ${title} starts at ${iso.slice(11, 16)} UTC on ${iso.slice(0, 10)}${place}`;
}

/** Longest part of a (shortened, "Ada L.") user name quoted in a referral message. */
const MAX_QUOTED_USER_NAME_LENGTH = 100;

const userName = (name: string, fallback: string) => quoted(name, MAX_QUOTED_USER_NAME_LENGTH, fallback);
const freeMonths = (count: number) => (count === 1 ? "1 free month" : `${count} free months`);

/**
 * SYSTEM notification to a referrer: someone signed up with their code. Only the referee's shortened name
 * ("Ada L.") is shown, never the full name or e-mail.
 */
export function referralCodeUsedMessage(refereeName: string): string {
  return `${userName(refereeName, "Someone")} signed up with your referral code.`;
}

/** SYSTEM notification to a referrer: their referee started a trial, so a cash reward waits to be claimed. */
export function referralTrialStartedReferrerMessage(refereeName: string, cashCents: number): string {
  const referee = userName(refereeName, "Someone");
  if (cashCents <= 0) return `${referee} started a trial with your referral code.`;
  return `${referee} started a trial: ${formatCents(cashCents)} is waiting for you on your referral page.`;
}

/**
 * SYSTEM notification to a referee who started a trial: the free months their friend's code gave them, which
 * they claim on the referral page (a free month extends an active subscription).
 */
export function referralTrialStartedRefereeMessage(referrerName: string, months: number): string {
  const referrer = userName(referrerName, "");
  const code = referrer ? `${referrer}'s referral code` : null;
  if (months <= 0) return `Your trial started with ${code ?? "your friend's referral code"}.`;
  const gift = `${freeMonths(months)}: claim ${months === 1 ? "it" : "them"} on your referral page once your subscription is active.`;
  return `${code ?? "Your friend's referral code"} gave you ${gift}`;
}

/** The subscription extension one processed free-month reward gives (the spec: 30 days, whatever the month). */
export const FREE_MONTH_DAYS = 30;

/** A processed reward as the notification describes it. */
export type ProcessedReward = { type: "CASH"; amountCents: number; accountCreditCents: number } | { type: "FREE_MONTH"; extendedUntil: Date | null };

/** SYSTEM notification confirming a processed reward: the credit added, or the subscription's extension (UTC date). */
export function rewardProcessedMessage(reward: ProcessedReward): string {
  if (reward.type === "CASH") {
    return `${formatCents(reward.amountCents)} was added to your account credit, which is now ${formatCents(reward.accountCreditCents)}.`;
  }
  const extension = `Your subscription was extended by ${FREE_MONTH_DAYS} days`;
  return reward.extendedUntil ? `${extension}, until ${reward.extendedUntil.toISOString().slice(0, 10)}.` : `${extension}.`;
}

export const WITHDRAWAL_STATUSES = ["PROCESSING", "COMPLETED", "FAILED"] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

/**
 * Notification of a withdrawal's new status: SYSTEM while it is processed and once paid out, ALERT when it failed
 * (with the reason; the reserved amount went back to the account credit).
 */
export function withdrawalStatusNotification(
  status: WithdrawalStatus,
  amountCents: number,
  failureReason: string | null,
): { type: NotificationType; content: string } {
  const withdrawal = `Your withdrawal of ${formatCents(amountCents)}`;
  switch (status) {
    case "PROCESSING":
      return { type: "SYSTEM", content: `${withdrawal} is being processed.` };
    case "COMPLETED":
      return { type: "SYSTEM", content: `${withdrawal} was paid out.` };
    case "FAILED": {
      // The reason reads as a clause: its own final full stop would double the one that follows.
      const reason = quoted((failureReason ?? "").replace(/[\s.]+$/, ""), MAX_QUOTED_ERROR_LENGTH, "unknown error");
      return { type: "ALERT", content: `${withdrawal} failed: ${reason}. The amount is back in your account credit.` };
    }
  }
}

/** Notifications created before this instant are past the retention period. */
export function retentionCutoff(now: Date, retentionDays: number): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

/** The retention rule: a notification is removed once it is read and was created before the cutoff. */
export function isPastRetention(notification: Pick<Notification, "read" | "createdAt">, cutoff: Date): boolean {
  return notification.read && notification.createdAt < cutoff;
}
