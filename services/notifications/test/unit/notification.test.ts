import { formatCents } from "@study/platform/money";
import {
  courseDeletedMessage,
  createNotification,
  documentFailedMessage,
  documentProcessedMessage,
  documentProcessingStartedMessage,
  importFailedMessage,
  importStartedMessage,
  noteReadyMessage,
  reminderMessage,
  isPastRetention,
  referralCodeUsedMessage,
  referralTrialStartedRefereeMessage,
  referralTrialStartedReferrerMessage,
  rewardProcessedMessage,
  markAsRead,
  MAX_CONTENT_LENGTH,
  retentionCutoff,
  syllabusEventsCreatedMessage,
  syllabusFailedMessage,
  syllabusProcessedMessage,
  welcomeMessage,
  withdrawalStatusNotification,
} from "../../src/domain/notification";
import { refusal } from "@study/testkit/refusal";

const now = new Date("2026-03-01T12:00:00Z");
const DAY_MS = 24 * 60 * 60 * 1000;

describe("notification rules", () => {
  it("creates an unread notification with trimmed content", () => {
    expect(createNotification("id", "alice", { type: "REMINDER", content: "  Exam tomorrow  " }, now)).toEqual({
      id: "id",
      userId: "alice",
      type: "REMINDER",
      content: "Exam tomorrow",
      read: false,
      createdAt: now,
      updatedAt: now,
    });
  });

  it("requires content of 1-2000 characters after trimming, counting an emoji once", async () => {
    expect(await refusal(() => createNotification("id", "u", { type: "ALERT", content: " \n\t " }, now))).toEqual({
      kind: "validation",
      code: "VALIDATION_ERROR",
      details: [{ field: "content", message: "must not be empty" }],
    });
    expect((await refusal(() => createNotification("id", "u", { type: "ALERT", content: "x".repeat(2001) }, now))).details).toEqual([
      { field: "content", message: "must be at most 2000 characters" },
    ]);
    const emojis = "🔔".repeat(MAX_CONTENT_LENGTH);
    expect(createNotification("id", "u", { type: "ALERT", content: ` ${emojis} ` }, now).content).toBe(emojis);
  });

  it("reports a missing type together with the content problem", async () => {
    expect((await refusal(() => createNotification("id", "u", { type: null, content: "" }, now))).details).toEqual([
      { field: "type", message: "must be one of SYSTEM, REMINDER, ALERT, MESSAGE" },
      { field: "content", message: "must not be empty" },
    ]);
  });

  it("marks a notification read once; reading it again leaves updatedAt alone", () => {
    const unread = createNotification("id", "u", { type: "MESSAGE", content: "Hi" }, now);
    const later = new Date(now.getTime() + 60_000);
    const read = markAsRead(unread, later);
    expect(read).toMatchObject({ read: true, createdAt: now, updatedAt: later });
    expect(markAsRead(read, new Date(later.getTime() + 60_000))).toEqual(read);
  });

  it("welcomes a user by name, and without one when the name is blank", () => {
    expect(welcomeMessage("  Ada Lovelace ")).toBe("Welcome to Study, Ada Lovelace! Add your first course to start organizing your studies.");
    expect(welcomeMessage("   ")).toBe("Welcome to Study! Add your first course to start organizing your studies.");
  });

  it("keeps the welcome message within the content limit, whatever the name's length", () => {
    const content = welcomeMessage("N".repeat(5_000));
    expect(content).toContain(`Study, ${"N".repeat(100)}!`);
    expect(createNotification("id", "u", { type: "SYSTEM", content }, now).content).toBe(content);
  });

  it("removes a notification only when it is read and was created before the retention cutoff", () => {
    const cutoff = retentionCutoff(now, 30);
    expect(cutoff).toEqual(new Date(now.getTime() - 30 * DAY_MS));
    const justBefore = new Date(cutoff.getTime() - 1);
    expect(isPastRetention({ read: true, createdAt: justBefore }, cutoff)).toBe(true);
    expect(isPastRetention({ read: false, createdAt: justBefore }, cutoff)).toBe(false);
    expect(isPastRetention({ read: true, createdAt: cutoff }, cutoff)).toBe(false);
  });
});

describe("courseDeletedMessage", () => {
  it("names the course, or says Untitled for a blank name", () => {
    expect(courseDeletedMessage("  Organic Chemistry ")).toBe(
      "Course “Organic Chemistry” was deleted, together with its notes, documents, study materials and chat sessions. " +
        "Its calendar events stay in your calendar without the course.",
    );
    expect(courseDeletedMessage(" ")).toContain("“Untitled”");
  });

  it("names everything a course deletion removes (notes, documents, study materials, chat sessions), issue #29", () => {
    const message = courseDeletedMessage("Microbiology");
    for (const removed of ["notes", "documents", "study materials", "chat sessions"]) expect(message).toContain(removed);
  });
});

describe("media import messages", () => {
  it("name the note in the started, ready and failed messages, the failure with its error text", () => {
    expect(importStartedMessage(" Lecture 3: Enzymes ")).toBe("Processing started for “Lecture 3: Enzymes”. We will let you know when it is ready.");
    expect(noteReadyMessage("Lecture 3: Enzymes")).toBe("“Lecture 3: Enzymes” is ready to view: its transcript and summary are available.");
    expect(importFailedMessage("Lecture 3", " The video is private ")).toBe("Processing of “Lecture 3” failed: The video is private");
    expect(importFailedMessage(" ", "")).toBe("Processing of “Untitled” failed: unknown error");
  });

  it("stay within the content limit, whatever the title and error lengths", () => {
    const content = importFailedMessage("T".repeat(5_000), "E".repeat(5_000));
    expect([...content].length).toBeLessThanOrEqual(MAX_CONTENT_LENGTH);
    expect(createNotification("id", "u", { type: "ALERT", content }, now).content).toBe(content);
    expect(createNotification("id", "u", { type: "SYSTEM", content: importStartedMessage("🎧".repeat(300)) }, now).content).toContain(
      "🎧".repeat(255),
    );
  });
});

describe("document messages", () => {
  it("name the document in the started, processed and failed messages, the failure with its error text", () => {
    expect(documentProcessingStartedMessage(" Chapter 3 slides ")).toBe(
      "Processing started for the document “Chapter 3 slides”. We will let you know when it is ready to search.",
    );
    expect(documentProcessedMessage("Chapter 3 slides")).toBe(
      "The document “Chapter 3 slides” was processed and indexed: you can now search it and generate study materials from it.",
    );
    expect(documentFailedMessage("Scan.pdf", " The PDF is encrypted ")).toBe("Processing of the document “Scan.pdf” failed: The PDF is encrypted");
    expect(documentFailedMessage(" ", "")).toBe("Processing of the document “Untitled” failed: unknown error");
  });

  it("count a syllabus's calendar events, in the singular for one and as none new for zero", () => {
    expect(syllabusProcessedMessage("BIO 101 Syllabus", 14)).toBe("The syllabus “BIO 101 Syllabus” was processed: 14 calendar events created.");
    expect(syllabusProcessedMessage("BIO 101 Syllabus", 1)).toBe("The syllabus “BIO 101 Syllabus” was processed: 1 calendar event created.");
    expect(syllabusProcessedMessage("BIO 101 Syllabus", 0)).toBe("The syllabus “BIO 101 Syllabus” was processed: no new calendar events created.");
    expect(syllabusEventsCreatedMessage("BIO 101 Syllabus", 14)).toBe(
      "14 calendar events were added to your calendar for the course of the syllabus “BIO 101 Syllabus”.",
    );
    expect(syllabusEventsCreatedMessage("BIO 101 Syllabus", 1)).toBe(
      "1 calendar event was added to your calendar for the course of the syllabus “BIO 101 Syllabus”.",
    );
    expect(syllabusFailedMessage("syllabus.pdf", "No dates were found")).toBe(
      "The syllabus “syllabus.pdf” could not be processed and was not saved: No dates were found",
    );
  });

  it("stay within the content limit, whatever the title, file name and error lengths", () => {
    for (const content of [
      documentFailedMessage("T".repeat(5_000), "E".repeat(5_000)),
      syllabusFailedMessage("F".repeat(5_000), "E".repeat(5_000)),
      syllabusEventsCreatedMessage("T".repeat(5_000), 1000),
      documentProcessedMessage("📄".repeat(5_000)),
    ]) {
      expect(createNotification("id", "u", { type: "ALERT", content }, now).content).toBe(content);
    }
  });
});

describe("calendar reminder message", () => {
  it("names the event, its start in UTC with the date, and its location when it has one", () => {
    const start = new Date("2026-03-02T09:05:00+02:00");
    expect(reminderMessage(" Lecture 4 ", start, " Room 101 ")).toBe("Reminder: Lecture 4 starts at 07:05 UTC on 2026-03-02 (Room 101)");
    expect(reminderMessage("Exam", start, null)).toBe("Reminder: Exam starts at 07:05 UTC on 2026-03-02");
    expect(reminderMessage(" ", start, " ")).toBe("Reminder: Untitled starts at 07:05 UTC on 2026-03-02");
  });

  it("stays within the content limit with the longest title and location the calendar allows", () => {
    const content = reminderMessage("T".repeat(255), new Date("2026-03-02T09:00:00Z"), "L".repeat(255));
    expect(createNotification("id", "u", { type: "REMINDER", content }, now).content).toBe(content);
  });
});

describe("billing messages", () => {
  it("show integer cents as amounts with two decimals", () => {
    expect([0, 5, 50, 500, 1000, 123_456, -250].map(formatCents)).toEqual(["0.00", "0.05", "0.50", "5.00", "10.00", "1234.56", "-2.50"]);
  });

  it("tell a referrer who used their code and started a trial, by the shortened name only", () => {
    expect(referralCodeUsedMessage(" Ada L. ")).toBe("Ada L. signed up with your referral code.");
    expect(referralCodeUsedMessage(" ")).toBe("Someone signed up with your referral code.");
    expect(referralTrialStartedReferrerMessage("Ada L.", 500)).toBe("Ada L. started a trial: 5.00 is waiting for you on your referral page.");
    expect(referralTrialStartedReferrerMessage("Ada L.", 0)).toBe("Ada L. started a trial with your referral code.");
  });

  it("tell a referee of the free months their friend's code gave them", () => {
    expect(referralTrialStartedRefereeMessage("Grace H.", 1)).toBe(
      "Grace H.'s referral code gave you 1 free month: claim it on your referral page once your subscription is active.",
    );
    expect(referralTrialStartedRefereeMessage("", 2)).toBe(
      "Your friend's referral code gave you 2 free months: claim them on your referral page once your subscription is active.",
    );
    expect(referralTrialStartedRefereeMessage("Grace H.", 0)).toBe("Your trial started with Grace H.'s referral code.");
  });

  it("confirm a processed reward: the credit added, or the subscription extended by 30 days until a UTC date", () => {
    expect(rewardProcessedMessage({ type: "CASH", amountCents: 500, accountCreditCents: 1250 })).toBe(
      "5.00 was added to your account credit, which is now 12.50.",
    );
    expect(rewardProcessedMessage({ type: "FREE_MONTH", extendedUntil: new Date("2026-12-24T23:30:00Z") })).toBe(
      "Your subscription was extended by 30 days, until 2026-12-24.",
    );
    expect(rewardProcessedMessage({ type: "FREE_MONTH", extendedUntil: null })).toBe("Your subscription was extended by 30 days.");
  });

  it("tell a withdrawal's status as SYSTEM, and a failure as an ALERT with its reason and the credit returned", () => {
    expect(withdrawalStatusNotification("PROCESSING", 1000, null)).toEqual({
      type: "SYSTEM",
      content: "Your withdrawal of 10.00 is being processed.",
    });
    expect(withdrawalStatusNotification("COMPLETED", 1000, null)).toEqual({ type: "SYSTEM", content: "Your withdrawal of 10.00 was paid out." });
    expect(withdrawalStatusNotification("FAILED", 1000, " The bank account was closed. ")).toEqual({
      type: "ALERT",
      content: "Your withdrawal of 10.00 failed: The bank account was closed. The amount is back in your account credit.",
    });
    expect(withdrawalStatusNotification("FAILED", 1050, null).content).toBe(
      "Your withdrawal of 10.50 failed: unknown error. The amount is back in your account credit.",
    );
  });

  it("stay within the content limit, whatever the name and reason lengths", () => {
    for (const { type, content } of [
      { type: "SYSTEM" as const, content: referralCodeUsedMessage("N".repeat(5_000)) },
      { type: "SYSTEM" as const, content: referralTrialStartedRefereeMessage("N".repeat(5_000), 1) },
      withdrawalStatusNotification("FAILED", Number.MAX_SAFE_INTEGER, "R".repeat(5_000)),
    ]) {
      expect(createNotification("id", "u", { type, content }, now).content).toBe(content);
    }
  });
});
