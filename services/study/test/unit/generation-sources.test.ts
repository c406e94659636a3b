import { OfflineStudyMaterialGenerator } from "../../src/adapters/generation/offline/offline-study-material-generator";
import { GenerateQuiz } from "../../src/application/generate-quiz";
import { GenerateStudyGuide } from "../../src/application/generate-study-guide";
import type { CurrentDocument, CurrentNote } from "../../src/application/ports/generation-sources.port";
import type { GenerationCommand } from "../../src/domain/generation-request";
import type { Quiz } from "../../src/domain/quiz";
import type { StudyGuide } from "../../src/domain/study-guide";
import { lectureNote } from "../adapters/generation/offline/fixtures/notes";
import { chapterDocument } from "../adapters/generation/offline/fixtures/documents";
import { MemoryMaterials } from "./memory-materials";
import { MemoryOwners } from "./memory-owners";

/**
 * What a generation reads and the rules on it, with the owners (courses, media, documents) in memory: study reads
 * the sources by id as the user, and answers as the gateway used to for another user's, unknown or misplaced ones.
 */

const ada = "0190a5f4-0000-7000-8000-00000000ada0";
const bob = "0190a5f4-0000-7000-8000-00000000b0b0";
const biology = "0190a5f4-0000-7000-8000-0000000000c1";
const history = "0190a5f4-0000-7000-8000-0000000000c2";
const bobsCourse = "0190a5f4-0000-7000-8000-0000000000c3";
const lectureId = "0190a5f4-0000-7000-8000-0000000000d1";
const pendingId = "0190a5f4-0000-7000-8000-0000000000d2";
const historyNoteId = "0190a5f4-0000-7000-8000-0000000000d3";
const bobsNoteId = "0190a5f4-0000-7000-8000-0000000000d4";
const chapterId = "0190a5f4-0000-7000-8000-0000000000e1";
const scanId = "0190a5f4-0000-7000-8000-0000000000e2";
const historyDocumentId = "0190a5f4-0000-7000-8000-0000000000e3";

const note = (noteId: string, courseId: string, extra: Partial<CurrentNote> = {}): CurrentNote => ({
  ...lectureNote(),
  noteId,
  courseId,
  transcriptionStatus: "COMPLETED",
  ...extra,
});
const chapter = (documentId: string, courseId: string, extra: Partial<CurrentDocument> = {}): CurrentDocument => ({
  ...chapterDocument(documentId),
  courseId,
  ...extra,
});

function world(): MemoryOwners {
  return new MemoryOwners()
    .addCourse(ada, biology, "Biology 101")
    .addCourse(ada, history, "History")
    .addCourse(bob, bobsCourse, "Bob's course")
    .addNote(ada, note(lectureId, biology))
    .addNote(ada, note(pendingId, biology, { title: "Week 2", transcriptionStatus: "PROCESSING", transcript: "", segments: [] }))
    .addNote(ada, note(historyNoteId, history))
    .addNote(bob, note(bobsNoteId, bobsCourse))
    .addDocument(ada, chapterId, chapter(chapterId, biology))
    .addDocument(ada, scanId, "not processed")
    .addDocument(ada, historyDocumentId, chapter(historyDocumentId, history));
}

const fromNotes = (noteIds: string[], extra: Partial<GenerationCommand> = {}): GenerationCommand => ({
  userId: ada,
  courseId: biology,
  noteIds,
  documentIds: [],
  difficulty: "MEDIUM",
  ...extra,
});
/** The document endpoint's request: the document alone, no course. */
const fromDocument = (documentId: string, extra: Partial<GenerationCommand> = {}): GenerationCommand =>
  fromNotes([], { courseId: "", documentIds: [documentId], ...extra });

describe("what a generation reads", () => {
  const generator = new OfflineStudyMaterialGenerator();

  it("reads the course and the notes as the user: the course's name and each note's content, confidences kept", async () => {
    const owners = world();
    const segments = [
      { text: "Enzymes lower the activation energy.", startTime: 0, endTime: 3.5, confidence: 0.92 },
      { text: "Mumble.", startTime: 3.5, endTime: 4, confidence: 0 },
      { text: "They are proteins.", startTime: 4, endTime: 5.25 },
    ];
    owners.addNote(ada, note(lectureId, biology, { segments }));
    const request = await owners.sources().read(fromNotes([lectureId], { difficulty: "HARD", focusAreas: ["enzymes"] }));
    expect(request).toMatchObject({ userId: ada, courseId: biology, courseName: "Biology 101", difficulty: "HARD", focusAreas: ["enzymes"] });
    expect(request.notes).toHaveLength(1);
    expect(request.notes[0]).not.toHaveProperty("courseId");
    expect(request.notes[0]).toMatchObject({ noteId: lectureId, transcriptionStatus: "COMPLETED" });
    expect(request.notes[0].segments).toEqual(segments);
    expect(request.notes[0].segments[1].confidence).toBe(0);
    expect(owners.reads).toEqual([`course ${biology}`, `note ${lectureId}`]);
  });

  it("answers 404 NOT_FOUND for another user's or an unknown course, note or document, and for a note or document of another course", async () => {
    const owners = world();
    const read = (command: GenerationCommand) => owners.sources().read(command);
    const notFound = expect.objectContaining({ kind: "not_found", code: "NOT_FOUND" });
    await expect(read(fromNotes([lectureId], { courseId: bobsCourse }))).rejects.toEqual(notFound);
    await expect(read(fromNotes([lectureId], { courseId: "0190a5f4-0000-7000-8000-0000000000ff" }))).rejects.toEqual(notFound);
    await expect(read(fromNotes([lectureId, bobsNoteId]))).rejects.toEqual(notFound);
    await expect(read(fromNotes(["0190a5f4-0000-7000-8000-0000000000fe"]))).rejects.toEqual(notFound);
    await expect(read(fromNotes([lectureId, historyNoteId]))).rejects.toEqual(
      expect.objectContaining({ kind: "not_found", message: `Note ${historyNoteId} in this course not found` }),
    );
    await expect(read(fromNotes([lectureId], { documentIds: [historyDocumentId] }))).rejects.toEqual(notFound);
    await expect(read(fromDocument("0190a5f4-0000-7000-8000-0000000000fd"))).rejects.toEqual(notFound);
    await expect(read(fromDocument(chapterId, { userId: bob }))).rejects.toEqual(notFound);
  });

  it("refuses a malformed request before reading anything", async () => {
    const owners = world();
    const invalid = (command: GenerationCommand) =>
      expect(owners.sources().read(command)).rejects.toEqual(expect.objectContaining({ kind: "validation", code: "VALIDATION_ERROR" }));
    await invalid(fromNotes([]));
    await invalid(fromNotes([lectureId, lectureId]));
    await invalid(fromNotes([lectureId], { courseId: " " }));
    await invalid(fromNotes(Array.from({ length: 21 }, (_, i) => `0190a5f4-0000-7000-8000-0000000001${String(i).padStart(2, "0")}`)));
    await invalid(fromDocument(chapterId, { focusAreas: ["x".repeat(101)] }));
    await invalid(fromNotes([lectureId], { documentIds: [chapterId, chapterId] }));
    expect(owners.reads).toEqual([]);
  });

  it("takes the document endpoint's course from its document, read first, and names the documents it read", async () => {
    const owners = world();
    const guides = new MemoryMaterials<StudyGuide>();
    const outcome = await new GenerateStudyGuide(guides, generator, owners.sources()).execute(fromDocument(chapterId));
    expect(outcome.created).toBe(true);
    expect(outcome.material).toMatchObject({ userId: ada, courseId: biology, documentIds: [chapterId], noteIds: [] });
    expect(outcome.documents).toEqual([{ documentId: chapterId, title: chapterDocument(chapterId).title }]);
    expect(owners.reads).toEqual([`document ${chapterId}`, `course ${biology}`]);
  });

  it("passes on DOCUMENT_NOT_PROCESSED and refuses a note not transcribed with 409 NOTE_NOT_TRANSCRIBED", async () => {
    const owners = world();
    const quizzes = new MemoryMaterials<Quiz>();
    const generate = (command: GenerationCommand) => new GenerateQuiz(quizzes, generator, owners.sources()).execute({ ...command, questionCount: 3 });
    await expect(generate(fromDocument(scanId))).rejects.toEqual(
      expect.objectContaining({ kind: "precondition", code: "DOCUMENT_NOT_PROCESSED", message: "The document has no text yet: still processing" }),
    );
    await expect(generate(fromNotes([lectureId, pendingId]))).rejects.toEqual(
      expect.objectContaining({ kind: "conflict", code: "NOTE_NOT_TRANSCRIBED", message: expect.stringContaining('Note "Week 2"') }),
    );
    expect(quizzes.rows).toEqual([]);
  });

  it("returns the existing material for the same content as read now, and makes new material once the note changed", async () => {
    const owners = world();
    const quizzes = new MemoryMaterials<Quiz>();
    const generate = () => new GenerateQuiz(quizzes, generator, owners.sources()).execute({ ...fromNotes([lectureId]), questionCount: 3 });
    const first = await generate();
    expect(first.created).toBe(true);
    expect(await generate()).toMatchObject({ created: false, material: { id: first.material.id } });
    const lecture = note(lectureId, biology);
    owners.addNote(ada, { ...lecture, transcript: `${lecture.transcript} Enzymes are proteins that speed up reactions.` });
    const changed = await generate();
    expect(changed.created).toBe(true);
    expect(changed.material.id).not.toBe(first.material.id);
  });
});
