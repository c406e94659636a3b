// Domain events of study.events.v1, gathered in one namespace (the generated files each export helpers
// with the same names, so they are re-exported by name).
export { EventEnvelope } from "./gen/study/events/v1/envelope";
export { UserRegistered } from "./gen/study/events/v1/identity";
export { CourseCreated, CourseUpdated, CourseDeleted } from "./gen/study/events/v1/courses";
export {
  NoteImportStarted,
  NoteTranscribed,
  NoteImportFailed,
  NoteUpdated,
  NoteDeleted,
  ImportRequested,
  NoteTranscriptSegment,
  NoteUserNote,
} from "./gen/study/events/v1/media";
export {
  FlashcardSetCreated,
  FlashcardSetDeleted,
  QuizCreated,
  QuizDeleted,
  StudyGuideCreated,
  StudyGuideDeleted,
} from "./gen/study/events/v1/study";
export { CalendarEventCreated, CalendarEventUpdated, CalendarEventDeleted, CalendarReminderDue } from "./gen/study/events/v1/calendar";
export { DocumentUploaded, DocumentProcessed, DocumentFailed, DocumentDeleted, SyllabusFailed } from "./gen/study/events/v1/documents";
export { ChatSessionCreated, ChatSessionUpdated, ChatSessionDeleted } from "./gen/study/events/v1/chat";
