import {
  eventually,
  httpClient,
  librivoxClip,
  sharedTestStack,
  signUpUser,
  uploadMultipart,
  waitForJob,
  type SharedStack,
  type SignedUpUser,
} from "@study/testkit";

/** What a student typed during the lecture: with the transcript, the text the material is generated from. */
const USER_NOTES = [
  { timestamp: 1, content: "Sense and Sensibility is a novel by Jane Austen, published in 1811.", contentType: "text" },
  { timestamp: 2, content: "Norland Park is the estate where the Dashwood family lived for many generations.", contentType: "text" },
  {
    timestamp: 3,
    content: "Elinor Dashwood is the eldest daughter and represents sense, while Marianne represents sensibility.",
    contentType: "text",
  },
  { timestamp: 4, content: "An entail is a legal restriction that keeps an estate within the male line of a family.", contentType: "text" },
  { timestamp: 5, content: "Fanny Dashwood persuades her husband John to give his sisters almost nothing.", contentType: "text" },
];

const COURSE = {
  name: "Regency Fiction Seminar",
  code: "ENG 342",
  professor: "Dr. Ferrars",
  semester: "Spring 2027",
  description: "Marriage, money and manners in the novels of the period",
};
/** The lecture note's title; the generated material is named after it ("… — Flashcards", "… — Quiz", "… — Study Guide"). */
const NOTE_TITLE = "Barton Cottage Lecture";
const TYPES = ["note", "flashcard_set", "study_guide", "quiz", "course", "document", "calendar_event", "chat_session"] as const;

interface SearchResult {
  id: string;
  type: string;
  title: string;
  courseId?: string;
  courseName?: string;
  relevanceScore: number;
}
interface SearchData {
  results: SearchResult[];
  totalCount: number;
  suggestions: string[];
  resultsByType: Record<string, number>;
  query: string;
  filters: Record<string, unknown>;
  pagination: { limit: number; offset: number; hasMore: boolean };
}
interface Owned {
  id: string;
  title: string;
  /** A word of the record's content that is not in its title. */
  contentWord: string;
}

/** The most distinctive word of a text (the longest one of letters only), leaving out the words of `title`. */
function wordOf(text: string, title: string): string {
  const titleWords = new Set(title.toLowerCase().split(/\W+/));
  const words = (text.match(/[A-Za-z]{6,}/g) ?? []).filter((word) => !titleWords.has(word.toLowerCase()));
  const word = words.sort((a, b) => b.length - a.length || a.localeCompare(b))[0];
  if (!word) throw new Error(`no word to search for in: ${text.slice(0, 200)}`);
  return word;
}

/** The counts of resultsByType that are not zero (a type without a match may be absent or 0). */
const counted = (byType: Record<string, number>) => Object.fromEntries(Object.entries(byType).filter(([, count]) => count !== 0));

describe("universal search through the gateway: every type found, filtered, paged, kept current, and never another user's", () => {
  let stack: SharedStack;
  let api: ReturnType<typeof httpClient>;
  let owner: SignedUpUser;
  let stranger: SignedUpUser;
  let course: { id: string };
  let otherCourse: { id: string };
  let strangerCourse: { id: string };
  let note: Owned & { createdAt: string };
  let flashcardSet: Owned;
  let quiz: Owned;
  let studyGuide: Owned;

  const search = async (token: string, parameters: Record<string, string>) => {
    const response = await api("GET", `/api/search?${new URLSearchParams(parameters).toString()}`, { token });
    expect({ parameters, status: response.status, code: response.body.code }).toEqual({ parameters, status: 200, code: undefined });
    return response.body.data as SearchData;
  };
  const ids = (data: SearchData) => data.results.map((result) => result.id);

  async function uploadNote(token: string, courseId: string, title: string) {
    const file = { path: librivoxClip("0870"), name: "lecture.wav", type: "audio/wav" };
    const { status, body } = await uploadMultipart(
      stack.gatewayUrl,
      token,
      "/api/notes/upload/audio",
      { courseId, title, speedMultiplier: "1" },
      file,
    );
    expect([status, body.code]).toEqual([201, undefined]);
    return { noteId: body.data.note.id as string, jobId: body.data.importJob.id as string, createdAt: body.data.note.createdAt as string };
  }

  async function createCourse(token: string, body: Record<string, string>) {
    const created = await api("POST", "/api/courses", { token, body });
    expect(created.status).toBe(201);
    return created.body.data as { id: string };
  }

  const generate = async (kind: "flashcards" | "quizzes" | "study-guides", difficulty: string) => {
    const response = await api("POST", `/api/${kind}/generate`, {
      token: owner.token,
      body: { courseId: course.id, noteIds: [note.id], difficulty },
    });
    expect([response.status, response.body.code]).toEqual([201, undefined]);
    return response.body.data;
  };

  beforeAll(async () => {
    stack = sharedTestStack();
    api = httpClient(stack.gatewayUrl);
    owner = await signUpUser(api, { name: "Searcher" });
    stranger = await signUpUser(api, { name: "Snoop" });
    course = await createCourse(owner.token, COURSE);
    otherCourse = await createCourse(owner.token, { name: "Botany Field Course", semester: "Fall 2026" });
    // The stranger owns something with the owner's word in it: their answers come from a working index, with their own record only.
    strangerCourse = await createCourse(stranger.token, { name: "Barton Reading Group" });

    // A recorded clip uploaded and transcribed, with the student's text notes: the note the material is generated from.
    const upload = await uploadNote(owner.token, course.id, NOTE_TITLE);
    expect((await waitForJob(api, owner.token, upload.jobId, { timeoutMs: 90_000, intervalMs: 200 })).status).toBe("COMPLETED");
    const edited = await api("PUT", `/api/notes/${upload.noteId}/user-notes`, { token: owner.token, body: { userNotes: USER_NOTES } });
    expect(edited.status).toBe(200);
    note = { id: upload.noteId, title: NOTE_TITLE, contentWord: "Norland", createdAt: upload.createdAt };

    const flashcards = await generate("flashcards", "MEDIUM");
    const cardText = flashcards.flashcards.map((card: { front: string; back: string }) => `${card.front} ${card.back}`).join(" ");
    flashcardSet = {
      id: flashcards.flashcardSet.id,
      title: flashcards.flashcardSet.title,
      contentWord: wordOf(cardText, flashcards.flashcardSet.title),
    };
    const generatedQuiz = await generate("quizzes", "HARD");
    const questionText = generatedQuiz.questions.map((question: { question: string }) => question.question).join(" ");
    quiz = { id: generatedQuiz.quiz.id, title: generatedQuiz.quiz.title, contentWord: wordOf(questionText, generatedQuiz.quiz.title) };
    const guide = await generate("study-guides", "EASY");
    studyGuide = { id: guide.id, title: guide.title, contentWord: wordOf(guide.content, guide.title) };

    // Indexing follows the events: wait until the owner's four records and the stranger's course are searchable.
    await eventually(async () => {
      const found = ids(await search(owner.token, { query: "Barton" }));
      return [note, flashcardSet, quiz, studyGuide].every(({ id }) => found.includes(id));
    }, 20_000);
    await eventually(async () => ids(await search(stranger.token, { query: "Barton" })).includes(strangerCourse.id), 20_000);
  }, 180_000);

  it("finds each type by words of its title and of its content, with the course's name on every result of the course", async () => {
    const cases: [string, string, string][] = [
      ["note", note.id, note.title],
      ["note", note.id, note.contentWord],
      ["flashcard_set", flashcardSet.id, flashcardSet.title],
      ["flashcard_set", flashcardSet.id, flashcardSet.contentWord],
      ["quiz", quiz.id, quiz.title],
      ["quiz", quiz.id, quiz.contentWord],
      ["study_guide", studyGuide.id, studyGuide.title],
      ["study_guide", studyGuide.id, studyGuide.contentWord],
      ["course", course.id, COURSE.name],
      ["course", course.id, "Ferrars"], // the professor (a keyword)
      ["course", course.id, "manners"], // the description
    ];
    for (const [type, id, query] of cases) {
      const data = await search(owner.token, { query });
      const result = data.results.find((candidate) => candidate.id === id);
      expect({ query, type, id, found: result && { type: result.type, courseId: result.courseId, courseName: result.courseName } }).toEqual({
        query,
        type,
        id,
        found: { type, courseId: course.id, courseName: COURSE.name },
      });
      expect(data.query).toBe(query);
    }

    const { results } = await search(owner.token, { query: NOTE_TITLE });
    const noteResult = results.find((result) => result.id === note.id);
    expect(noteResult).toMatchObject({
      title: NOTE_TITLE,
      type: "note",
      courseId: course.id,
      courseName: COURSE.name,
      createdAt: note.createdAt,
      metadata: expect.any(Object),
      highlights: expect.any(Array),
    });
    for (const result of results) {
      expect(result.relevanceScore).toBeGreaterThanOrEqual(0.1); // the default minRelevance
      expect(result.relevanceScore).toBeLessThanOrEqual(1);
    }
    const scores = results.map((result) => result.relevanceScore);
    expect(scores).toEqual([...scores].sort((a, b) => b - a)); // ranked by relevance
  });

  it("counts the matches per type and in total, before the page", async () => {
    const data = await search(owner.token, { query: "Barton" });
    expect(counted(data.resultsByType)).toEqual({ note: 1, flashcard_set: 1, quiz: 1, study_guide: 1 });
    expect(data.totalCount).toBe(4);
    expect(ids(data).sort()).toEqual([note.id, flashcardSet.id, quiz.id, studyGuide.id].sort());
    expect(data.pagination).toEqual({ limit: 50, offset: 0, hasMore: false });
    expect(data.filters).toMatchObject({ minRelevance: 0.1 });

    const limited = await search(owner.token, { query: "Barton", limit: "1" });
    expect([limited.results.length, limited.totalCount, counted(limited.resultsByType)]).toEqual([1, 4, counted(data.resultsByType)]);
  });

  it("pages with limit and offset", async () => {
    const first = await search(owner.token, { query: "Barton", limit: "3", offset: "0" });
    expect([first.results.length, first.totalCount, first.pagination]).toEqual([3, 4, { limit: 3, offset: 0, hasMore: true }]);
    const second = await search(owner.token, { query: "Barton", limit: "3", offset: "3" });
    expect([second.results.length, second.totalCount, second.pagination]).toEqual([1, 4, { limit: 3, offset: 3, hasMore: false }]);
    expect(new Set([...ids(first), ...ids(second)])).toEqual(new Set([note.id, flashcardSet.id, quiz.id, studyGuide.id]));
    const beyond = await search(owner.token, { query: "Barton", offset: "10" });
    expect([beyond.results, beyond.totalCount, beyond.pagination.hasMore]).toEqual([[], 4, false]);
  });

  it("filters by types, course, creation dates, difficulty and status", async () => {
    const byTypes = await search(owner.token, { query: "Barton", types: "quiz,study_guide" });
    expect(ids(byTypes).sort()).toEqual([quiz.id, studyGuide.id].sort());
    expect(counted(byTypes.resultsByType)).toEqual({ quiz: 1, study_guide: 1 });
    expect(byTypes.filters).toMatchObject({ types: ["quiz", "study_guide"] });
    expect(ids(await search(owner.token, { query: "Barton", types: "course" }))).toEqual([]);

    expect((await search(owner.token, { query: "Barton", courseId: course.id })).totalCount).toBe(4);
    const otherCourseOnly = await search(owner.token, { query: "Barton", courseId: otherCourse.id });
    expect([otherCourseOnly.totalCount, otherCourseOnly.filters.courseId]).toEqual([0, otherCourse.id]);
    // A course is a record of its own course.
    expect(ids(await search(owner.token, { query: "Botany", courseId: otherCourse.id }))).toEqual([otherCourse.id]);

    // Creation dates, in UTC days; endDate includes its whole day.
    const day = note.createdAt.slice(0, 10);
    const shift = (days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
    const onTheDay = await search(owner.token, { query: "Barton", startDate: day, endDate: day });
    expect(onTheDay.totalCount).toBe(4);
    expect(onTheDay.filters).toMatchObject({ startDate: day, endDate: day });
    expect((await search(owner.token, { query: "Barton", startDate: shift(-3), endDate: shift(3) })).totalCount).toBe(4);
    expect((await search(owner.token, { query: "Barton", startDate: shift(1) })).totalCount).toBe(0);
    expect((await search(owner.token, { query: "Barton", endDate: shift(-1) })).totalCount).toBe(0);

    // Difficulty belongs to material; status to notes.
    expect(ids(await search(owner.token, { query: "Barton", difficulty: "HARD" }))).toEqual([quiz.id]);
    expect(ids(await search(owner.token, { query: "Barton", difficulty: "EASY,MEDIUM" })).sort()).toEqual([flashcardSet.id, studyGuide.id].sort());
    const completed = await search(owner.token, { query: "Barton", status: "COMPLETED" });
    expect([ids(completed), completed.filters.status]).toEqual([[note.id], ["COMPLETED"]]);
    expect((await search(owner.token, { query: "Barton", status: "PROCESSING,FAILED" })).totalCount).toBe(0);
  });

  it("suggests completions from the user's own titles", async () => {
    const { status, body } = await api("GET", "/api/search/suggestions?query=Bart", { token: owner.token });
    expect(status).toBe(200);
    expect(body.data.suggestions.some((suggestion: string) => /barton/i.test(suggestion))).toBe(true);
    const regency = (await api("GET", "/api/search/suggestions?query=Regen", { token: owner.token })).body.data.suggestions as string[];
    expect(regency.some((suggestion) => /regency/i.test(suggestion))).toBe(true);
  });

  it("lists the filters with the user's courses and their semesters", async () => {
    const { status, body } = await api("GET", "/api/search/filters", { token: owner.token });
    expect(status).toBe(200);
    const filters = body.data;
    expect(filters.types.map((option: { value: string }) => option.value).sort()).toEqual([...TYPES].sort());
    expect(filters.courses).toEqual(
      expect.arrayContaining([
        { value: course.id, label: COURSE.name, semester: COURSE.semester },
        { value: otherCourse.id, label: "Botany Field Course", semester: "Fall 2026" },
      ]),
    );
    expect(filters.courses).toHaveLength(2);
    expect(filters.difficulty.map((option: { value: string }) => option.value)).toEqual(["EASY", "MEDIUM", "HARD"]);
    expect(filters.status.map((option: { value: string }) => option.value).sort()).toEqual(["COMPLETED", "FAILED", "PROCESSING"]);
    expect(filters.dateRanges.map((option: { value: string }) => option.value)).toEqual(["today", "week", "month", "semester", "custom"]);
  });

  it("answers every search error code of the spec with its status", async () => {
    /** The answer's status and code, as the owner, as a caller with a made-up token, or without any (`null`). */
    const refusal = async (path: string, token: string | null = owner.token) => {
      const { status, body } = await api("GET", path, { token: token ?? undefined });
      return { path, status, code: body.code, success: body.success };
    };
    const cases: [string, number, string][] = [
      ["/api/search", 400, "VALIDATION_ERROR"],
      ["/api/search?query=", 400, "VALIDATION_ERROR"],
      [`/api/search?query=${"a".repeat(501)}`, 400, "VALIDATION_ERROR"],
      ["/api/search?query=Barton&types=lecture", 400, "VALIDATION_ERROR"],
      ["/api/search?query=Barton&difficulty=IMPOSSIBLE", 400, "VALIDATION_ERROR"],
      ["/api/search?query=Barton&status=DONE", 400, "VALIDATION_ERROR"],
      ["/api/search?query=Barton&startDate=2026-13-45", 400, "VALIDATION_ERROR"],
      ["/api/search?query=Barton&endDate=yesterday", 400, "VALIDATION_ERROR"],
      ["/api/search?query=Barton&limit=0", 400, "INVALID_LIMIT"],
      ["/api/search?query=Barton&limit=101", 400, "INVALID_LIMIT"],
      ["/api/search?query=Barton&offset=-1", 400, "INVALID_OFFSET"],
      ["/api/search?query=Barton&minRelevance=1.5", 400, "INVALID_MIN_RELEVANCE"],
      ["/api/search?query=Barton&minRelevance=-0.1", 400, "INVALID_MIN_RELEVANCE"],
      ["/api/search?query=Barton&startDate=2026-11-30&endDate=2026-11-01", 400, "INVALID_DATE_RANGE"],
      ["/api/search/suggestions?query=B", 400, "QUERY_TOO_SHORT"],
      [`/api/search/suggestions?query=${"b".repeat(101)}`, 400, "VALIDATION_ERROR"],
    ];
    for (const [path, status, code] of cases) expect(await refusal(path)).toEqual({ path, status, code, success: false });
    for (const path of ["/api/search?query=Barton", "/api/search/filters", "/api/search/suggestions?query=Bart"]) {
      expect(await refusal(path, null)).toEqual({ path, status: 401, code: "UNAUTHORIZED", success: false });
      expect(await refusal(path, "nonsense")).toEqual({ path, status: 401, code: "UNAUTHORIZED", success: false });
    }
  });

  it("refuses a parameter given twice, and a NUL character, naming the parameter (the gateway's own rules)", async () => {
    const twice = await api("GET", "/api/search?query=Barton&limit=1&limit=2", { token: owner.token });
    expect([twice.status, twice.body.code, twice.body.details]).toEqual([
      400,
      "VALIDATION_ERROR",
      [{ field: "limit", message: "must be given once" }],
    ]);
    const twiceSuggested = await api("GET", "/api/search/suggestions?query=Bart&query=Reg", { token: owner.token });
    expect([twiceSuggested.status, twiceSuggested.body.details]).toEqual([400, [{ field: "query", message: "must be given once" }]]);
    const nul = await api("GET", "/api/search?query=Bar%00ton", { token: owner.token });
    expect([nul.status, nul.body.details]).toEqual([400, [{ field: "query", message: "must not contain a NUL character" }]]);
  });

  it("SECURITY: another user finds, counts and is suggested nothing of the owner's, for every type", async () => {
    const queries = [
      "Barton",
      NOTE_TITLE,
      COURSE.name,
      "Ferrars",
      "manners",
      ...[note, flashcardSet, quiz, studyGuide].flatMap((owned) => [owned.title, owned.contentWord]),
    ];
    const ownerIds = [course.id, otherCourse.id, note.id, flashcardSet.id, quiz.id, studyGuide.id];
    for (const query of queries) {
      for (const parameters of [{ query }, { query, courseId: course.id }, { query, types: TYPES.join(",") }, { query, minRelevance: "0" }]) {
        const data = await search(stranger.token, parameters);
        const leaked = data.results.filter((result) => ownerIds.includes(result.id) || result.courseName === COURSE.name);
        expect({ parameters, leaked, suggestions: data.suggestions.filter((s) => /barton cottage|regency|ferrars/i.test(s)) }).toEqual({
          parameters,
          leaked: [],
          suggestions: [],
        });
        // Only the stranger's own course can match (it is named "Barton Reading Group").
        expect({ parameters, results: ids(data) }).toEqual({ parameters, results: ids(data).filter((id) => id === strangerCourse.id) });
        expect({ parameters, total: data.totalCount, byType: counted(data.resultsByType) }).toEqual({
          parameters,
          total: data.results.length,
          byType: data.results.length === 0 ? {} : { course: 1 },
        });
      }
    }
    // With the owner's course id every type counts zero.
    for (const type of TYPES) {
      const data = await search(stranger.token, { query: "Barton", types: type, courseId: course.id, minRelevance: "0" });
      expect({ type, results: data.results, total: data.totalCount, byType: counted(data.resultsByType) }).toEqual({
        type,
        results: [],
        total: 0,
        byType: {},
      });
    }
    // Suggestions come from the stranger's own titles only.
    for (const prefix of ["Bart", "Barton Cot", "Regen", "Ferr", "Botan", "Norl"]) {
      const { status, body } = await api("GET", `/api/search/suggestions?query=${encodeURIComponent(prefix)}`, { token: stranger.token });
      expect(status).toBe(200);
      const foreign = (body.data.suggestions as string[]).filter((s) => /barton cottage|regency|ferrars|botany|norland/i.test(s));
      expect({ prefix, foreign }).toEqual({ prefix, foreign: [] });
    }
    const strangerFilters = (await api("GET", "/api/search/filters", { token: stranger.token })).body.data;
    expect(strangerFilters.courses).toEqual([{ value: strangerCourse.id, label: "Barton Reading Group", semester: null }]);
  });

  it("finds a renamed note by its new title and no longer by the old one", async () => {
    const upload = await uploadNote(owner.token, course.id, "Kellynch Hall memo");
    expect((await waitForJob(api, owner.token, upload.jobId, { timeoutMs: 90_000, intervalMs: 200 })).status).toBe("COMPLETED");
    await eventually(async () => ids(await search(owner.token, { query: "Kellynch" })).includes(upload.noteId), 15_000);

    const renamed = await api("PATCH", `/api/notes/${upload.noteId}`, { token: owner.token, body: { title: "Uppercross Cottage memo" } });
    expect(renamed.status).toBe(200);
    const found = await eventually(async () => {
      const data = await search(owner.token, { query: "Uppercross" });
      return data.results.find((result) => result.id === upload.noteId);
    }, 15_000);
    expect(found).toMatchObject({ title: "Uppercross Cottage memo", type: "note", courseName: COURSE.name });
    expect(ids(await search(owner.token, { query: "Kellynch" }))).not.toContain(upload.noteId);

    // Deleted: gone from results and counts.
    expect((await api("DELETE", `/api/notes/${upload.noteId}`, { token: owner.token })).status).toBe(200);
    await eventually(async () => (await search(owner.token, { query: "Uppercross" })).totalCount === 0, 15_000);
  }, 150_000);

  it("forgets deleted records: a course and a flashcard set", async () => {
    const temporary = await createCourse(owner.token, { name: "Lyme Regis Excursion" });
    await eventually(async () => ids(await search(owner.token, { query: "Lyme Regis" })).includes(temporary.id), 15_000);
    expect((await api("DELETE", `/api/courses/${temporary.id}`, { token: owner.token })).status).toBe(200);
    await eventually(async () => (await search(owner.token, { query: "Lyme Regis" })).totalCount === 0, 15_000);

    expect((await api("DELETE", `/api/flashcards/${flashcardSet.id}`, { token: owner.token })).status).toBe(200);
    const after = await eventually(async () => {
      const data = await search(owner.token, { query: "Barton" });
      return ids(data).includes(flashcardSet.id) ? undefined : data;
    }, 15_000);
    expect(counted(after.resultsByType)).toEqual({ note: 1, quiz: 1, study_guide: 1 });
    expect(after.totalCount).toBe(3);
    const filters = (await api("GET", "/api/search/filters", { token: owner.token })).body.data;
    expect(filters.courses.map((option: { value: string }) => option.value)).not.toContain(temporary.id);
  });
});
