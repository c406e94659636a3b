/**
 * The soak's clients: many users, each with what they made so far (courses, notes, documents, events, material,
 * a referral), and the requests a student's app sends, picked at random by weight and started on a schedule
 * (open loop: a slow answer does not slow the arrivals). Every answer is recorded: route, status, time, whether
 * an error had the spec's envelope.
 */

/** One request as the client saw it. */
export interface Outcome {
  /** `METHOD /path/:template`. */
  route: string;
  /** The HTTP status; `network` when no answer came (refused, reset); `timeout` when the client gave up. */
  status: number | "network" | "timeout";
  /** Milliseconds since the soak's start when it was sent, and how long it took. */
  at: number;
  ms: number;
  /** The gateway's deadline for this route (the client waits this plus a little). */
  deadlineMs: number;
  /** For an error status: whether the body was the spec's envelope {success: false, error, code}. */
  envelope?: boolean;
  code?: string;
}

/** Deterministic random numbers (mulberry32) so that a `--seed` replays the same choices. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Deadlines {
  /** GRPC_DEADLINE_MS: every route that calls a service. */
  grpc: number;
  /** STUDY_GENERATION_DEADLINE_MS: the generation routes. */
  generation: number;
  /** UPLOAD_REQUEST_TIMEOUT_MS: the upload routes. */
  upload: number;
  /** What the client waits beyond a route's deadline before it gives up. */
  slack: number;
}

interface Answer {
  status: number | "network" | "timeout";
  body: unknown;
}

/** A value inside a JSON answer by its path (`at(body, "data", "id")`), or undefined when it is not there. */
export function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A string inside a JSON answer, or undefined. */
export const textAt = (value: unknown, ...path: string[]): string | undefined => {
  const found = at(value, ...path);
  return typeof found === "string" ? found : undefined;
};

/** Sends requests to the gateway and records each answer. */
export class SoakClient {
  readonly outcomes: Outcome[] = [];
  private inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly baseUrl: string,
    private readonly deadlines: Deadlines,
    private readonly startedAt: number,
  ) {}

  deadlineOf(route: string): number {
    if (/\/generate$/.test(route)) return this.deadlines.generation;
    if (/upload/.test(route)) return this.deadlines.upload;
    return this.deadlines.grpc;
  }

  /** Requests still waiting for their answer. */
  pending(): number {
    return this.inFlight.size;
  }

  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  async call(route: string, path: string, options: { token?: string; json?: unknown; form?: FormData } = {}): Promise<Answer> {
    const method = route.split(" ")[0];
    const deadlineMs = this.deadlineOf(route);
    const headers: Record<string, string> = {};
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.json !== undefined) headers["content-type"] = "application/json";
    const sent = performance.now();
    const request = (async (): Promise<Answer> => {
      let answer: Answer;
      try {
        const response = await fetch(`${this.baseUrl}${path}`, {
          method,
          headers,
          body: options.form ?? (options.json === undefined ? undefined : JSON.stringify(options.json)),
          signal: AbortSignal.timeout(deadlineMs + this.deadlines.slack),
        });
        const text = await response.text();
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
          // eslint-disable-next-line no-restricted-syntax -- a body that is not JSON is kept as text: the envelope check below reports it
        } catch {}
        answer = { status: response.status, body };
      } catch (error) {
        const name = (error as Error).name;
        answer = { status: name === "TimeoutError" || name === "AbortError" ? "timeout" : "network", body: undefined };
      }
      const ms = performance.now() - sent;
      const outcome: Outcome = { route, status: answer.status, at: sent - this.startedAt, ms, deadlineMs };
      if (typeof answer.status === "number" && answer.status >= 400) {
        const body = answer.body as { success?: unknown; error?: unknown; code?: unknown } | undefined;
        outcome.envelope = typeof body === "object" && body?.success === false && typeof body.error === "string" && typeof body.code === "string";
        if (outcome.envelope) outcome.code = body?.code as string;
      }
      this.outcomes.push(outcome);
      return answer;
    })();
    this.inFlight.add(request);
    void request.finally(() => this.inFlight.delete(request));
    return request;
  }
}

// ------------------------------------------------------------------------------------------------------ users

interface Course {
  id: string;
  name: string;
}
interface Note {
  id: string;
  jobId: string;
  courseId: string;
  title: string;
  transcribed: boolean;
  failed: boolean;
  /** Typed notes were saved: material can be generated even when the clip's transcript has no words. */
  typed: boolean;
  /** The first line of every user-notes list the gateway accepted (200) for this note. */
  savedUserNotes: string[];
}
interface Doc {
  id: string;
  courseId: string;
  processed: boolean;
  failed: boolean;
}

export interface SoakUser {
  index: number;
  name: string;
  email: string;
  token?: string;
  userId?: string;
  signingUp: boolean;
  courses: Course[];
  notes: Note[];
  documents: Doc[];
  events: string[];
  material: { kind: "flashcards" | "quizzes" | "study-guides"; id: string }[];
  referralCode?: string;
  /** "refused": billing turned the referral down (a soak user's e-mail is never verified, nor does it subscribe). */
  referral: "none" | "signed-up" | "trial" | "refused";
  /** A counter for unique names of what this user makes. */
  made: number;
}

const FIRST_NAMES = ["Ada", "Grace", "Alan", "Emmy", "Kurt", "Rosalind", "Niels", "Lise", "Srinivasa", "Marie"];
const LAST_NAMES = ["Lovelace", "Hopper", "Turing", "Noether", "Goedel", "Franklin", "Bohr", "Meitner", "Ramanujan", "Curie"];
const TOPICS = ["photosynthesis", "mitochondria", "entropy", "derivatives", "sonnets", "tectonics", "enzymes", "integrals", "romanticism", "osmosis"];
const EVENT_TYPES = ["CLASS", "DEADLINE", "EXAM", "MEETING", "STUDY_SESSION"];
/** Sentences a student types during a lecture: definitions and facts, what study material is made from. */
const FACTS = [
  "Photosynthesis is the process by which plants convert light energy into chemical energy stored in glucose.",
  "Mitochondria are the organelles that produce most of the cell's supply of adenosine triphosphate.",
  "Entropy is a measure of the disorder of a system, and it never decreases in an isolated system.",
  "A derivative measures how a function changes as its input changes, and it is the slope of the tangent line.",
  "A sonnet is a poem of fourteen lines, usually written in iambic pentameter with a fixed rhyme scheme.",
  "Plate tectonics is the theory that the lithosphere is divided into plates that move over the mantle.",
  "Enzymes are proteins that speed up chemical reactions by lowering their activation energy.",
  "An integral gives the area under a curve, and integration is the reverse of differentiation.",
  "Romanticism was an artistic movement of the late eighteenth century that valued emotion and nature.",
  "Osmosis is the movement of water across a semipermeable membrane from low to high solute concentration.",
];

/** A page of lecture-like text on `topic` for a document upload (plain text: extracted at once, no OCR). */
export function documentText(topic: string, seed: number): string {
  const sentences = Array.from(
    { length: 30 },
    (_, i) =>
      `${topic} lecture point ${i + 1}: the ${TOPICS[(seed + i) % TOPICS.length]} example shows how ${topic} relates to ${TOPICS[(seed * 3 + i) % TOPICS.length]}.`,
  );
  return `Notes on ${topic}\n\n${sentences.join(" ")}\n`;
}

export interface TrafficOptions {
  users: number;
  random: () => number;
  /** Bytes of a short recorded lecture (WAV) for audio uploads. */
  audio: Buffer;
  /** At most one audio upload per this many milliseconds (each is transcribed by the one media worker). */
  uploadEveryMs: number;
}

type Action = { weight: number; applies: (user: SoakUser) => boolean; run: (user: SoakUser) => Promise<unknown> };

/** The users and the requests they send. `tick()` starts one request (not awaited: the caller keeps the schedule). */
export class Traffic {
  readonly users: SoakUser[];
  private lastUpload = -Infinity;
  private readonly actions: Action[];

  constructor(
    private readonly client: SoakClient,
    private readonly options: TrafficOptions,
  ) {
    const run = Date.now().toString(36);
    this.users = Array.from({ length: options.users }, (_, index) => ({
      index,
      name: `${FIRST_NAMES[index % FIRST_NAMES.length]} ${LAST_NAMES[Math.floor(index / FIRST_NAMES.length) % LAST_NAMES.length]}`,
      email: `soak-${run}-${index}@example.com`,
      signingUp: false,
      courses: [],
      notes: [],
      documents: [],
      events: [],
      material: [],
      referral: "none",
      made: 0,
    }));
    this.actions = this.mix();
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.options.random() * items.length)];
  }

  private unique(user: SoakUser, what: string): string {
    user.made += 1;
    return `${what} u${user.index}-${user.made}`;
  }

  /** Starts the next request: a pending sign-up first (one per tick), then a signed-up user's next step. */
  async tick(): Promise<unknown> {
    const waiting = this.users.find((user) => !user.token && !user.signingUp);
    const active = this.users.filter((user) => user.token);
    // Two sign-ups at a time: each hashes a password (scrypt, tens of ms of CPU), and a crowd of them at once
    // only measures the thread pool's queue, which real arrivals spread over the day never build.
    const signingUp = this.users.filter((user) => user.signingUp).length;
    if (waiting && signingUp < 2 && (active.length === 0 || this.options.random() < 0.5)) return this.signUp(waiting);
    if (active.length === 0) return Promise.resolve();
    const user = this.pick(active);
    if (user.courses.length === 0) return this.createCourse(user);
    const candidates = this.actions.filter((action) => action.applies(user));
    const total = candidates.reduce((sum, action) => sum + action.weight, 0);
    let roll = this.options.random() * total;
    for (const action of candidates) {
      roll -= action.weight;
      if (roll <= 0) return action.run(user);
    }
    return candidates[candidates.length - 1].run(user);
  }

  private async signUp(user: SoakUser): Promise<void> {
    user.signingUp = true;
    const answer = await this.client.call("POST /api/auth/signup", "/api/auth/signup", {
      json: { name: user.name, email: user.email, password: "correct horse battery staple" },
    });
    // A sign-up cut by an outage may have happened: signing in finds out (and is retried later otherwise).
    if (answer.status === 200) this.signedIn(user, answer.body);
    else if (
      answer.status === 409 ||
      answer.status === "timeout" ||
      answer.status === "network" ||
      (typeof answer.status === "number" && answer.status >= 500)
    ) {
      const signIn = await this.client.call("POST /api/auth/signin", "/api/auth/signin", {
        json: { email: user.email, password: "correct horse battery staple" },
      });
      if (signIn.status === 200) this.signedIn(user, signIn.body);
    }
    user.signingUp = false;
  }

  private signedIn(user: SoakUser, body: unknown) {
    user.token = textAt(body, "session", "token");
    user.userId = textAt(body, "user", "id");
  }

  private async createCourse(user: SoakUser): Promise<void> {
    const name = this.unique(user, `Course ${this.pick(TOPICS)}`);
    const answer = await this.client.call("POST /api/courses", "/api/courses", {
      token: user.token,
      json: { name, code: `S${user.index}`, color: "#6366f1", semester: "Fall 2026" },
    });
    const id = textAt(answer.body, "data", "id");
    if (answer.status === 201 && id) user.courses.push({ id, name });
  }

  private course(user: SoakUser): Course {
    return this.pick(user.courses);
  }

  /** The weighted mix: reads dominate, as in a student's app; writes fan out into events. */
  private mix(): Action[] {
    const always = () => true;
    const token = (user: SoakUser) => ({ token: user.token });
    const c = this.client;
    return [
      { weight: 8, applies: always, run: (u) => c.call("GET /api/courses", "/api/courses", token(u)) },
      { weight: 2, applies: always, run: (u) => this.createCourse(u) },
      {
        weight: 1,
        applies: (u) => u.courses.length > 0,
        run: async (u) => {
          const course = this.course(u);
          const name = this.unique(u, `Course ${this.pick(TOPICS)}`);
          const answer = await c.call("PATCH /api/courses/:id", `/api/courses/${course.id}`, { ...token(u), json: { name } });
          if (answer.status === 200) course.name = name;
        },
      },
      {
        weight: 0.4,
        applies: (u) => u.courses.length > 1,
        run: async (u) => {
          const course = this.course(u);
          const answer = await c.call("DELETE /api/courses/:id", `/api/courses/${course.id}`, token(u));
          if (answer.status === 200 || answer.status === 404) {
            u.courses = u.courses.filter((kept) => kept !== course);
            u.notes = u.notes.filter((note) => note.courseId !== course.id);
            u.documents = u.documents.filter((document) => document.courseId !== course.id);
          }
        },
      },
      { weight: 5, applies: always, run: (u) => c.call("GET /api/notes", "/api/notes", token(u)) },
      { weight: 4, applies: always, run: (u) => c.call("GET /api/dashboard", "/api/dashboard", token(u)) },
      { weight: 4, applies: always, run: (u) => c.call("GET /api/notifications", "/api/notifications?limit=20", token(u)) },
      { weight: 2, applies: always, run: (u) => c.call("GET /api/notifications/unread-count", "/api/notifications/unread-count", token(u)) },
      {
        weight: 3,
        applies: () => performance.now() - this.lastUpload >= this.options.uploadEveryMs,
        run: (u) => this.uploadAudio(u),
      },
      {
        weight: 3,
        applies: (u) => u.notes.some((note) => !note.transcribed && !note.failed),
        run: async (u) => {
          const note = this.pick(u.notes.filter((candidate) => !candidate.transcribed && !candidate.failed));
          const answer = await c.call("GET /api/jobs/:id", `/api/jobs/${note.jobId}`, token(u));
          if (answer.status === 200) {
            const status = textAt(answer.body, "data", "status");
            note.transcribed = status === "COMPLETED";
            note.failed = status === "FAILED" || status === "CANCELLED";
          }
        },
      },
      {
        weight: 2,
        applies: (u) => u.notes.length > 0,
        run: (u) => c.call("GET /api/notes/:id", `/api/notes/${this.pick(u.notes).id}`, token(u)),
      },
      {
        weight: 1.5,
        applies: (u) => u.notes.length > 0,
        run: (u) => {
          const note = this.pick(u.notes);
          // Stated facts (the offline generator refuses notes without them: NOT_ENOUGH_CONTENT), after a first
          // line that names this save, which the lost-update check looks for.
          const save = this.unique(u, "save");
          const start = Math.floor(this.options.random() * FACTS.length);
          const userNotes = [`Notes saved as ${save}.`, ...[0, 1, 2, 3, 4].map((i) => FACTS[(start + i) % FACTS.length])].map((content, second) => ({
            timestamp: second,
            content,
            contentType: "text",
          }));
          return c.call("PUT /api/notes/:id/user-notes", `/api/notes/${note.id}/user-notes`, { ...token(u), json: { userNotes } }).then((answer) => {
            if (answer.status !== 200) return;
            note.typed = true;
            note.savedUserNotes.push(userNotes[0].content);
          });
        },
      },
      {
        weight: 0.5,
        applies: (u) => u.notes.length > 0,
        run: async (u) => {
          const note = this.pick(u.notes);
          const title = this.unique(u, "Lecture");
          const answer = await c.call("PATCH /api/notes/:id", `/api/notes/${note.id}`, { ...token(u), json: { title } });
          if (answer.status === 200) note.title = title;
        },
      },
      {
        weight: 0.3,
        applies: (u) => u.notes.some((note) => note.transcribed || note.failed),
        run: async (u) => {
          const note = this.pick(u.notes.filter((candidate) => candidate.transcribed || candidate.failed));
          const answer = await c.call("DELETE /api/notes/:id", `/api/notes/${note.id}`, token(u));
          if (answer.status === 200 || answer.status === 404) u.notes = u.notes.filter((kept) => kept !== note);
        },
      },
      {
        weight: 2.5,
        applies: (u) => u.notes.some((note) => note.transcribed && note.typed),
        run: async (u) => {
          const note = this.pick(u.notes.filter((candidate) => candidate.transcribed && candidate.typed));
          const kind = this.pick(["flashcards", "quizzes", "study-guides"] as const);
          const answer = await c.call(`POST /api/${kind}/generate`, `/api/${kind}/generate`, {
            ...token(u),
            json: { courseId: note.courseId, noteIds: [note.id], ...(kind === "flashcards" ? { cardCount: 5 } : {}) },
          });
          const id =
            textAt(answer.body, "data", "flashcardSet", "id") ?? textAt(answer.body, "data", "quiz", "id") ?? textAt(answer.body, "data", "id");
          if (answer.status === 201 && id) u.material.push({ kind, id });
        },
      },
      {
        weight: 2,
        applies: always,
        run: (u) => {
          const course = this.course(u);
          const topic = this.pick(TOPICS);
          const form = new FormData();
          form.append("courseId", course.id);
          form.append("title", this.unique(u, `Reading ${topic}`));
          form.append("file", new File([documentText(topic, u.made)], `${topic}.txt`, { type: "text/plain" }));
          return c.call("POST /api/documents/upload", "/api/documents/upload", { ...token(u), form }).then((answer) => {
            const id = textAt(answer.body, "document", "id");
            if (answer.status === 200 && id) u.documents.push({ id, courseId: course.id, processed: false, failed: false });
          });
        },
      },
      {
        weight: 2,
        applies: (u) => u.documents.length > 0,
        run: async (u) => {
          const document = this.pick(u.documents);
          const answer = await c.call("GET /api/documents/:id", `/api/documents/${document.id}?courseId=${document.courseId}`, token(u));
          if (answer.status === 200) {
            document.processed = textAt(answer.body, "data", "status") === "COMPLETED";
            document.failed = textAt(answer.body, "data", "status") === "FAILED";
          }
        },
      },
      { weight: 2, applies: always, run: (u) => c.call("GET /api/documents", `/api/documents?courseId=${this.course(u).id}`, token(u)) },
      {
        weight: 1.5,
        applies: (u) => u.documents.some((document) => document.processed),
        run: (u) => {
          const document = this.pick(u.documents.filter((candidate) => candidate.processed));
          return c.call("POST /api/documents/:id/generate", `/api/documents/${document.id}/generate`, {
            ...token(u),
            json: { types: [this.pick(["flashcards", "quiz", "study-guide"])], options: { questionCount: 5 } },
          });
        },
      },
      {
        weight: 0.3,
        applies: (u) => u.documents.some((document) => document.processed || document.failed),
        run: async (u) => {
          const document = this.pick(u.documents.filter((candidate) => candidate.processed || candidate.failed));
          const answer = await c.call("DELETE /api/documents/:id", `/api/documents/${document.id}?courseId=${document.courseId}`, token(u));
          if (answer.status === 200 || answer.status === 404) u.documents = u.documents.filter((kept) => kept !== document);
        },
      },
      {
        weight: 5,
        applies: always,
        run: (u) => c.call("GET /api/search", `/api/search?query=${encodeURIComponent(this.pick(TOPICS))}&limit=10`, token(u)),
      },
      {
        weight: 1.5,
        applies: always,
        run: (u) => c.call("GET /api/search/suggestions", `/api/search/suggestions?query=${this.pick(TOPICS).slice(0, 4)}`, token(u)),
      },
      {
        weight: 2.5,
        applies: always,
        run: async (u) => {
          // Some start within the default 30-minute reminder: the reminder scheduler fires for them during the soak.
          const start = new Date(Date.now() + (5 + Math.floor(this.options.random() * 120)) * 60_000);
          const answer = await c.call("POST /api/calendar/events", "/api/calendar/events", {
            ...token(u),
            json: {
              title: this.unique(u, `Event ${this.pick(TOPICS)}`),
              startDate: start.toISOString(),
              endDate: new Date(start.getTime() + 3_600_000).toISOString(),
              eventType: this.pick(EVENT_TYPES),
              color: "#3b82f6",
              courseId: this.course(u).id,
            },
          });
          const id = textAt(answer.body, "data", "id");
          if (answer.status === 201 && id) u.events.push(id);
        },
      },
      { weight: 4, applies: always, run: (u) => c.call("GET /api/calendar/events", "/api/calendar/events?limit=20", token(u)) },
      {
        weight: 1,
        applies: (u) => u.events.length > 0,
        run: (u) =>
          c.call("PATCH /api/calendar/events/:id", `/api/calendar/events/${this.pick(u.events)}`, {
            ...token(u),
            json: { location: `Room ${Math.floor(this.options.random() * 400)}` },
          }),
      },
      {
        weight: 0.5,
        applies: (u) => u.events.length > 0,
        run: async (u) => {
          const id = this.pick(u.events);
          const answer = await c.call("DELETE /api/calendar/events/:id", `/api/calendar/events/${id}`, token(u));
          if (answer.status === 200 || answer.status === 404) u.events = u.events.filter((kept) => kept !== id);
        },
      },
      { weight: 1.5, applies: always, run: (u) => c.call("GET /api/flashcards", "/api/flashcards", token(u)) },
      {
        weight: 1,
        applies: (u) => u.material.length > 0,
        run: (u) => {
          const item = this.pick(u.material);
          return c.call(`GET /api/${item.kind}/:id`, `/api/${item.kind}/${item.id}`, token(u));
        },
      },
      {
        weight: 2,
        applies: always,
        run: async (u) => {
          const answer = await c.call("GET /api/referral/dashboard", "/api/referral/dashboard", token(u));
          const code = textAt(answer.body, "data", "referralCode");
          if (answer.status === 200 && code) u.referralCode = code;
        },
      },
      {
        weight: 1.5,
        // Every other user is referred by someone (once: DUPLICATE_REFERRAL after that).
        applies: (u) => u.referral === "none" && u.index % 2 === 1 && this.users.some((other) => other !== u && other.referralCode),
        run: async (u) => {
          const referrer = this.pick(this.users.filter((other) => other !== u && other.referralCode));
          const answer = await c.call("POST /api/referral/signup", "/api/referral/signup", { ...token(u), json: { code: referrer.referralCode } });
          const code = textAt(answer.body, "code");
          if (answer.status === 200 || code === "DUPLICATE_REFERRAL") u.referral = "signed-up";
          else if (code === "EMAIL_NOT_VERIFIED" || code === "REFERRAL_LIMIT_REACHED") u.referral = "refused";
        },
      },
      {
        weight: 1.5,
        applies: (u) => u.referral === "signed-up",
        run: async (u) => {
          const answer = await c.call("POST /api/referral/trial-start", "/api/referral/trial-start", token(u));
          const code = textAt(answer.body, "code");
          if (answer.status === 200 || code === "NO_REFERRAL") u.referral = "trial";
          // Referral farming's shape, refused by billing (services/billing/README.md, "Referral abuse rules").
          else if (code === "NO_SUBSCRIPTION" || code === "EMAIL_NOT_VERIFIED" || code === "REFERRAL_LIMIT_REACHED") u.referral = "refused";
        },
      },
    ];
  }

  private async uploadAudio(user: SoakUser): Promise<void> {
    this.lastUpload = performance.now();
    const course = this.course(user);
    const title = this.unique(user, "Lecture");
    const form = new FormData();
    form.append("courseId", course.id);
    form.append("title", title);
    form.append("speedMultiplier", "1");
    form.append("file", new File([this.options.audio], "lecture.wav", { type: "audio/wav" }));
    const answer = await this.client.call("POST /api/notes/upload/audio", "/api/notes/upload/audio", { token: user.token, form });
    const id = textAt(answer.body, "data", "note", "id");
    const jobId = textAt(answer.body, "data", "importJob", "id");
    if (answer.status === 201 && id && jobId)
      user.notes.push({ id, jobId, courseId: course.id, title, transcribed: false, failed: false, typed: false, savedUserNotes: [] });
  }
}
