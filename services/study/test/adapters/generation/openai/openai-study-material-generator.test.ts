import { createOpenAiClient } from "@study/ai";
import { createLogger } from "@study/platform";
import {
  openAiErrorBody,
  startOpenAiPeer,
  type OpenAiPeer,
  type PeerReply,
  type PeerRequest,
} from "../../../../../../libs/ai/test/support/openai-peer";
import {
  flashcardSetAnswerSchema,
  flashcardSetAnswerSchemaFor,
  quizAnswerSchema,
  quizAnswerSchemaFor,
  strictJsonSchema,
  studyGuideAnswerSchema,
  studyGuideAnswerSchemaFor,
} from "../../../../src/adapters/generation/openai/answer-schemas";
import {
  OpenAiStudyMaterialGenerator,
  type OpenAiStudyMaterialGeneratorOptions,
} from "../../../../src/adapters/generation/openai/openai-study-material-generator";
import type { GenerationInput } from "../../../../src/application/ports/study-material-generator.port";
import type { SourceDocument, SourceNote } from "../../../../src/domain/study-material";

const LECTURE: SourceNote = {
  noteId: "3f2a9c1e-7b4d-4e0a-9c55-0d1e2f3a4b5c",
  title: "Photosynthesis",
  transcript: "Light is absorbed by chlorophyll. Water is split, releasing oxygen. Glucose stores the energy.",
  segments: [
    { text: "Light is absorbed by chlorophyll.", startTime: 0, endTime: 12.5 },
    { text: "Water is split, releasing oxygen.", startTime: 12.5, endTime: 30.04 },
    { text: "Glucose stores the energy.", startTime: 30.04, endTime: 41 },
  ],
  userNotes: [{ timestamp: 14, content: "Oxygen comes from water, not CO2!", contentType: "text" }],
  summary: "Plants turn light into chemical energy.",
};
const READING: SourceNote = {
  noteId: "b7c1d2e3-0000-4000-8000-000000000002",
  title: "Calvin cycle reading",
  transcript: "The Calvin cycle fixes carbon dioxide into sugar.",
  segments: [],
  userNotes: [],
};
const INPUT: GenerationInput = { courseName: "Biology 101", notes: [LECTURE, READING], difficulty: "HARD" };

let peer: OpenAiPeer;
let reply: (request: PeerRequest, index: number) => PeerReply;

beforeAll(async () => {
  peer = await startOpenAiPeer((request, index) => reply(request, index));
});

afterAll(async () => {
  await peer.close();
});

beforeEach(() => {
  peer.requests.length = 0;
});

function generator(options: Partial<OpenAiStudyMaterialGeneratorOptions> = {}) {
  const client = createOpenAiClient({ apiKey: "sk-test", baseURL: peer.baseURL, maxRetries: 0 });
  return new OpenAiStudyMaterialGenerator({ client, model: "gpt-4o-mini", ...options });
}

/** A chat completion whose message content is `content` (JSON-encoded unless already a string). */
function completion(content: unknown, options: { finishReason?: string; refusal?: string } = {}): PeerReply {
  return {
    json: {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1_760_000_000,
      model: "gpt-4o-mini",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: typeof content === "string" || content === null ? content : JSON.stringify(content),
            refusal: options.refusal ?? null,
          },
          finish_reason: options.finishReason ?? "stop",
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 500, completion_tokens: 200, total_tokens: 700 },
    },
  };
}

const source = (noteId: string | null, startTime: number | null) => ({ sourceNoteId: noteId, sourceStartTime: startTime });

const FLASHCARD_ANSWER = {
  title: " Photosynthesis ",
  description: "Light reactions and the Calvin cycle.",
  cards: [
    { front: "What absorbs light?", back: "Chlorophyll.", ...source(LECTURE.noteId, 0) },
    // Cited inside the second segment: snaps back to its start.
    { front: "Where does the released oxygen come from?", back: "From split water.", ...source(LECTURE.noteId, 20) },
    // t=30.0 as the prompt shows it is the segment starting at 30.04, not the one before.
    { front: "What stores the energy?", back: "Glucose.", ...source(`note ${LECTURE.noteId}`, 30) },
    { front: "What does the Calvin cycle fix?", back: "Carbon dioxide.", ...source(READING.noteId, null) },
    { front: "Who discovered it?", back: "Unknown.", ...source("no-such-note", 3) },
    { front: "One card too many", back: "Dropped.", ...source(LECTURE.noteId, 0) },
  ],
};

const QUIZ_QUESTION = {
  question: "What absorbs light in photosynthesis?",
  type: "multiple_choice",
  options: ["Chlorophyll", "Glucose", "Oxygen", "Water"],
  correctAnswer: "Chlorophyll",
  explanation: "The lecture says chlorophyll absorbs the light.",
  ...source(LECTURE.noteId, 5),
};
const QUIZ_ANSWER = {
  title: "Photosynthesis quiz",
  description: "Checks the light reactions.",
  questions: [
    QUIZ_QUESTION,
    {
      question: "The oxygen released comes from carbon dioxide.",
      type: "true_false",
      options: ["True", "False"],
      correctAnswer: "False",
      explanation: "It comes from split water.",
      ...source(LECTURE.noteId, null),
    },
  ],
};

const STUDY_GUIDE_ANSWER = {
  title: "Photosynthesis",
  description: "A guide to how plants store light energy.",
  overview: "Plants absorb light and store its energy in glucose.",
  keyTerms: ["chlorophyll", " ", "Calvin cycle"],
  learningObjectives: ["Explain where the oxygen comes from"],
  studyTips: ["Draw the cycle from memory"],
  sections: [
    {
      title: "Light reactions",
      content: "**Chlorophyll** absorbs light; water is split.",
      subsections: [{ title: "Oxygen", content: "Comes from water." }],
      ...source(LECTURE.noteId, 12.5),
    },
    { title: "Calvin cycle", content: "Fixes CO2 into sugar.", subsections: [], ...source(READING.noteId, null) },
  ],
};

type ChatRequest = {
  model: string;
  messages: { role: string; content: string }[];
  response_format: { type: string; json_schema: { name: string; strict: boolean; schema: Record<string, unknown> } };
};
const body = (request: PeerRequest) => request.json() as ChatRequest;

/** Every object in a JSON schema, nested ones included. */
function objectSchemas(schema: unknown): Record<string, unknown>[] {
  if (typeof schema !== "object" || schema === null) return [];
  const nested = Object.values(schema).flatMap(objectSchemas);
  return (schema as { type?: unknown }).type === "object" ? [schema as Record<string, unknown>, ...nested] : nested;
}

describe("OpenAiStudyMaterialGenerator", () => {
  it("asks the model for flashcards with a strict JSON schema and the tagged notes, and links each card to its source", async () => {
    reply = () => completion(FLASHCARD_ANSWER);
    const set = await generator({ model: "llama-3.1-8b-instruct" }).generateFlashcards({ ...INPUT, cardCount: 5 });

    expect(peer.requests).toHaveLength(1);
    const [request] = peer.requests;
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe("Bearer sk-test");
    const { model, response_format, messages } = body(request);
    expect(model).toBe("llama-3.1-8b-instruct");
    expect(response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "flashcard_set", strict: true, schema: strictJsonSchema(flashcardSetAnswerSchema) },
    });
    const card = (response_format.json_schema.schema as { properties: { cards: { items: Record<string, unknown> } } }).properties.cards.items;
    expect(card).toMatchObject({
      type: "object",
      required: ["front", "back", "sourceNoteId", "sourceStartTime"],
      additionalProperties: false,
      properties: { sourceNoteId: { type: ["string", "null"] }, sourceStartTime: { type: ["number", "null"] } },
    });

    expect(messages.map((message) => message.role)).toEqual(["system", "user"]);
    const [system, user] = messages.map((message) => message.content);
    expect(system).toContain("Write exactly 5 flashcards");
    expect(system).toContain("Difficulty HARD: advanced level");
    expect(system).toContain("sourceNoteId");
    expect(user).toBe(
      [
        "Course: Biology 101",
        "Difficulty: HARD",
        "",
        "Notes:",
        "",
        `Note ${LECTURE.noteId}: Photosynthesis`,
        "Summary: Plants turn light into chemical energy.",
        `[note ${LECTURE.noteId}, t=0.0] Light is absorbed by chlorophyll.`,
        `[note ${LECTURE.noteId}, t=12.5] Water is split, releasing oxygen.`,
        `[note ${LECTURE.noteId}, t=30.0] Glucose stores the energy.`,
        `[note ${LECTURE.noteId}, user note, t=14.0] Oxygen comes from water, not CO2!`,
        `Note ${READING.noteId}: Calvin cycle reading`,
        `[note ${READING.noteId}] The Calvin cycle fixes carbon dioxide into sugar.`,
      ].join("\n"),
    );

    expect(set).toEqual({
      title: "Photosynthesis",
      description: "Light reactions and the Calvin cycle.",
      cards: [
        { front: "What absorbs light?", back: "Chlorophyll.", source: { noteId: LECTURE.noteId, startTime: 0 } },
        { front: "Where does the released oxygen come from?", back: "From split water.", source: { noteId: LECTURE.noteId, startTime: 12.5 } },
        { front: "What stores the energy?", back: "Glucose.", source: { noteId: LECTURE.noteId, startTime: 30.04 } },
        { front: "What does the Calvin cycle fix?", back: "Carbon dioxide.", source: { noteId: READING.noteId, startTime: null } },
        // An unknown note id and no shared words with any passage: the first note, without a time.
        { front: "Who discovered it?", back: "Unknown.", source: { noteId: LECTURE.noteId, startTime: null } },
      ],
    });
  });

  it("asks for a quiz with the question rules and the difficulty, and returns it with sources", async () => {
    reply = () => completion(QUIZ_ANSWER);
    const quiz = await generator().generateQuiz({ ...INPUT, difficulty: "EASY", questionCount: 2 });

    const { model, response_format, messages } = body(peer.requests[0]);
    expect(model).toBe("gpt-4o-mini");
    expect(response_format.json_schema).toEqual({ name: "quiz", strict: true, schema: strictJsonSchema(quizAnswerSchema) });
    const system = messages[0].content;
    expect(system).toContain("Write exactly 2 questions");
    expect(system).toContain("exactly four distinct options");
    expect(system).toContain('exactly the options ["True", "False"]');
    expect(system).toContain("correctAnswer is one of the options, copied verbatim");
    expect(system).toContain("Difficulty EASY: introductory level");
    expect(messages[1].content).toContain(`[note ${LECTURE.noteId}, t=12.5] Water is split, releasing oxygen.`);

    expect(quiz).toEqual({
      title: "Photosynthesis quiz",
      description: "Checks the light reactions.",
      questions: [
        {
          question: "What absorbs light in photosynthesis?",
          type: "multiple_choice",
          options: ["Chlorophyll", "Glucose", "Oxygen", "Water"],
          correctAnswer: "Chlorophyll",
          explanation: "The lecture says chlorophyll absorbs the light.",
          source: { noteId: LECTURE.noteId, startTime: 0 },
        },
        {
          question: "The oxygen released comes from carbon dioxide.",
          type: "true_false",
          options: ["True", "False"],
          correctAnswer: "False",
          explanation: "It comes from split water.",
          // Cited without a time: its words match the user note at 14 s, in the segment that starts at 12.5 s.
          source: { noteId: LECTURE.noteId, startTime: 12.5 },
        },
      ],
    });
  });

  it("asks for a study guide and returns its sections with sources", async () => {
    reply = () => completion(STUDY_GUIDE_ANSWER);
    const guide = await generator().generateStudyGuide({ ...INPUT, difficulty: "MEDIUM" });

    const { response_format, messages } = body(peer.requests[0]);
    expect(response_format.json_schema).toEqual({ name: "study_guide", strict: true, schema: strictJsonSchema(studyGuideAnswerSchema) });
    expect(messages[0].content).toContain("Difficulty MEDIUM: intermediate level");
    expect(messages[0].content).toContain("Markdown content");
    expect(guide).toEqual({
      title: "Photosynthesis",
      description: "A guide to how plants store light energy.",
      overview: "Plants absorb light and store its energy in glucose.",
      keyTerms: ["chlorophyll", "Calvin cycle"],
      learningObjectives: ["Explain where the oxygen comes from"],
      studyTips: ["Draw the cycle from memory"],
      sections: [
        {
          title: "Light reactions",
          content: "**Chlorophyll** absorbs light; water is split.",
          subsections: [{ title: "Oxygen", content: "Comes from water." }],
          source: { noteId: LECTURE.noteId, startTime: 12.5 },
        },
        { title: "Calvin cycle", content: "Fixes CO2 into sugar.", subsections: [], source: { noteId: READING.noteId, startTime: null } },
      ],
    });
  });

  it.each([
    ["flashcards", flashcardSetAnswerSchema],
    ["quiz", quizAnswerSchema],
    ["study guide", studyGuideAnswerSchema],
  ])("sends a %s schema strict mode accepts: every object closed, every property required", (_material, schema) => {
    const jsonSchema = strictJsonSchema(schema);
    expect(jsonSchema).not.toHaveProperty("$schema");
    const objects = objectSchemas(jsonSchema);
    expect(objects.length).toBeGreaterThan(1);
    for (const object of objects) {
      expect(object.additionalProperties).toBe(false);
      expect(object.required).toEqual(Object.keys(object.properties as object));
    }
  });

  it.each([
    ["invalid JSON", completion('{"title": "Photosynthesis", "cards": [')],
    ["an answer cut off by the length limit", completion({ title: "Photosynthesis", description: "", cards: [] }, { finishReason: "length" })],
    ["a refusal", completion(null, { refusal: "I can't help with that." })],
    ["an answer not matching the schema", completion({ title: "Photosynthesis", cards: [{ front: "Q" }] })],
    ["an answer breaking the domain rules", completion({ ...FLASHCARD_ANSWER, cards: [] })],
  ])("retries once after %s and returns the second, valid answer", async (_case, firstAnswer) => {
    const logger = createLogger("test", "silent");
    const warn = jest.spyOn(logger, "warn");
    reply = (_request, index) => (index === 0 ? firstAnswer : completion(FLASHCARD_ANSWER));
    const set = await generator({ logger }).generateFlashcards({ ...INPUT, cardCount: 2 });

    expect(set.cards.map((card) => card.front)).toEqual(["What absorbs light?", "Where does the released oxygen come from?"]);
    expect(peer.requests).toHaveLength(2);
    const [first, second] = peer.requests.map(body);
    // The same request, plus what was wrong with the first answer.
    expect(second.response_format).toEqual(first.response_format);
    expect(second.messages.slice(0, 2)).toEqual(first.messages);
    expect(second.messages).toHaveLength(3);
    expect(second.messages[2]).toMatchObject({ role: "user", content: expect.stringContaining("An earlier answer to this request was rejected") });
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ generator: "openai:gpt-4o-mini", material: "flashcards", attempt: 1 }),
      "The model's answer was rejected",
    );
  });

  it("rejects with GENERATION_INVALID when the answer is malformed twice", async () => {
    reply = () => completion("Sure! Here are your flashcards: ...");
    await expect(generator().generateFlashcards({ ...INPUT, cardCount: 3 })).rejects.toMatchObject({
      name: "AppError",
      kind: "unavailable",
      code: "GENERATION_INVALID",
      message: "The AI service's flashcards answer was unusable (not valid JSON); nothing was stored",
    });
    expect(peer.requests).toHaveLength(2);
  });

  it("names the fields at fault when the answer does not match the schema", async () => {
    reply = () => completion({ title: "Photosynthesis", description: "", cards: [{ front: "Q", back: 42, ...source(null, null) }] });
    await expect(generator().generateFlashcards({ ...INPUT, cardCount: 3 })).rejects.toMatchObject({
      code: "GENERATION_INVALID",
      message: "The AI service's flashcards answer was unusable (does not match the schema); nothing was stored",
      details: [{ field: "cards[0].back", message: expect.stringContaining("expected string") }],
    });
  });

  it("rejects a quiz whose correct answer is not among the options, telling the model why before giving up", async () => {
    const wrongAnswer = { ...QUIZ_ANSWER, questions: [{ ...QUIZ_QUESTION, correctAnswer: "Sunlight" }] };
    reply = () => completion(wrongAnswer);
    await expect(generator().generateQuiz({ ...INPUT, questionCount: 1 })).rejects.toMatchObject({
      kind: "unavailable",
      code: "GENERATION_INVALID",
      details: [{ field: "questions[0].correctAnswer", message: "is not one of the options" }],
    });
    expect(peer.requests).toHaveLength(2);
    expect(body(peer.requests[1]).messages[2].content).toContain("questions[0].correctAnswer: is not one of the options");
  });

  it("reports a response that is not a chat completion without retrying", async () => {
    reply = () => ({ text: "<html>Bad gateway</html>" });
    await expect(generator().generateStudyGuide(INPUT)).rejects.toMatchObject({ kind: "unavailable", code: "AI_MALFORMED_RESPONSE" });
    expect(peer.requests).toHaveLength(1);
  });

  it("reports rate limiting with the server's retry-after", async () => {
    reply = () => ({
      status: 429,
      headers: { "retry-after": "20" },
      json: openAiErrorBody("Rate limit reached for gpt-4o-mini", "requests", "rate_limit_exceeded"),
    });
    await expect(generator().generateQuiz({ ...INPUT, questionCount: 3 })).rejects.toMatchObject({
      kind: "rate_limited",
      code: "RATE_LIMITED",
      action: "RETRY_LATER",
      details: [{ field: "retryAfterSeconds", message: "20" }],
    });
    expect(peer.requests).toHaveLength(1);
  });

  it("reports a server that does not answer in time as a timeout", async () => {
    reply = () => ({ ...completion(FLASHCARD_ANSWER), delayMs: 2000 });
    await expect(generator({ requestTimeoutMs: 150 }).generateFlashcards({ ...INPUT, cardCount: 3 })).rejects.toMatchObject({
      kind: "timeout",
      code: "UPSTREAM_TIMEOUT",
    });
  });

  it("rejects with an AbortError when cancelled while the model is writing", async () => {
    const controller = new AbortController();
    reply = () => {
      controller.abort();
      return { ...completion(STUDY_GUIDE_ANSWER), delayMs: 2000 };
    };
    await expect(generator().generateStudyGuide(INPUT, controller.signal)).rejects.toMatchObject({ name: "AbortError" });
    expect(peer.requests).toHaveLength(1);
  });

  it("sends evenly spaced passages of notes longer than the input budget", async () => {
    const segments = Array.from({ length: 1000 }, (_, index) => ({
      text: `Fact number ${index} of the long lecture.`,
      startTime: index * 6,
      endTime: index * 6 + 6,
    }));
    const longLecture: SourceNote = { ...LECTURE, segments, userNotes: [] };
    reply = () => completion(FLASHCARD_ANSWER);
    await generator({ maxInputChars: 10_000 }).generateFlashcards({ ...INPUT, notes: [longLecture], cardCount: 5 });

    const user = body(peer.requests[0]).messages[1].content;
    expect(user).toContain("Notes (too long to send whole: evenly spaced passages of them):");
    const notesText = user.slice(user.indexOf(`Note ${LECTURE.noteId}`));
    expect(notesText.length).toBeLessThanOrEqual(10_000);
    const sentFacts = [...notesText.matchAll(/Fact number (\d+) /g)].map((match) => Number(match[1]));
    expect(sentFacts.length).toBeGreaterThan(100);
    const gaps = sentFacts.slice(1).map((fact, index) => fact - sentFacts[index]);
    expect(Math.max(...gaps) - Math.min(...gaps)).toBeLessThanOrEqual(1);
    expect(sentFacts[0]).toBe(0);
    expect(sentFacts.at(-1)).toBeGreaterThanOrEqual(1000 - Math.max(...gaps));
  });

  describe("from a document", () => {
    const HANDOUT: SourceDocument = {
      documentId: "5d0c2b7e-1111-4a2b-8c3d-0e1f2a3b4c5d",
      title: "Membranes handout",
      pages: [
        { number: 1, text: "Membrane transport\n\nOsmosis is the diffusion of water across a selectively\npermeable membrane." },
        { number: 2, text: "Active transport uses energy from ATP.\nThe sodium potassium pump is an example." },
        { number: 3, text: "" },
      ],
    };
    const FROM_DOCUMENT: GenerationInput = {
      courseName: "Biology 101",
      notes: [],
      documents: [HANDOUT],
      focusAreas: [" osmosis ", "ATP"],
      difficulty: "MEDIUM",
    };
    const cite = (documentId: string | null, page: number | null) => ({ sourceDocumentId: documentId, sourcePage: page });

    it("sends the pages tagged with their numbers, the focus areas, and a schema citing document and page", async () => {
      reply = () =>
        completion({
          title: "Membranes",
          description: "Transport across membranes.",
          cards: [
            { front: "What is osmosis?", back: "Diffusion of water across a membrane.", ...cite(HANDOUT.documentId, 1) },
            { front: "What powers active transport?", back: "ATP.", ...cite(`document ${HANDOUT.documentId}`, 2) },
            // A page the document does not have: matched by its words (the pump is on page 2).
            { front: "Name a pump.", back: "The sodium potassium pump.", ...cite(HANDOUT.documentId, 9) },
            // Nothing known cited, no words shared: the document, without a page.
            { front: "Who wrote it?", back: "Unknown.", ...cite("no-such-document", null) },
            { front: "One card too many", back: "Dropped.", ...cite(HANDOUT.documentId, 1) },
          ],
        });
      const set = await generator().generateFlashcards({ ...FROM_DOCUMENT, cardCount: 4 });

      const { response_format, messages } = body(peer.requests[0]);
      const schema = strictJsonSchema(flashcardSetAnswerSchemaFor({ notes: false, documents: true }));
      expect(response_format.json_schema).toEqual({ name: "flashcard_set", strict: true, schema });
      const card = (schema as { properties: { cards: { items: Record<string, unknown> } } }).properties.cards.items;
      expect(card).toMatchObject({
        required: ["front", "back", "sourceDocumentId", "sourcePage"],
        additionalProperties: false,
        properties: { sourceDocumentId: { type: ["string", "null"] }, sourcePage: { type: ["number", "null"] } },
      });
      const [system, user] = messages.map((message) => message.content);
      expect(system).toContain("You write flashcards for a student revising course documents.");
      expect(system).toContain("Write exactly 4 flashcards (fewer only if the documents do not hold that many distinct facts)");
      expect(system).toContain('Focus areas: "osmosis", "ATP". Give priority to the passages of the documents that mention them:');
      expect(system).toContain("Use only information from the documents");
      expect(system).toContain("sourceDocumentId is the document id from its tag, sourcePage its p= value.");
      expect(system).not.toContain("sourceNoteId");
      expect(system).not.toContain("speech recognition");
      expect(user).toBe(
        [
          "Course: Biology 101",
          "Difficulty: MEDIUM",
          "",
          "Documents:",
          "",
          `Document ${HANDOUT.documentId}: Membranes handout`,
          `[document ${HANDOUT.documentId}, p=1] Membrane transport Osmosis is the diffusion of water across a selectively permeable membrane.`,
          `[document ${HANDOUT.documentId}, p=2] Active transport uses energy from ATP. The sodium potassium pump is an example.`,
        ].join("\n"),
      );

      expect(set.cards.map((item) => item.source)).toEqual([
        { documentId: HANDOUT.documentId, page: 1 },
        { documentId: HANDOUT.documentId, page: 2 },
        { documentId: HANDOUT.documentId, page: 2 },
        { documentId: HANDOUT.documentId, page: null },
      ]);
    });

    it("writes a quiz and a study guide from the pages, each item on its page", async () => {
      reply = () =>
        completion({
          title: "Membranes quiz",
          description: "Transport.",
          questions: [
            {
              ...QUIZ_QUESTION,
              question: "What moves by osmosis?",
              options: ["Water", "ATP", "Sodium", "Glucose"],
              correctAnswer: "Water",
              ...cite(HANDOUT.documentId, 1),
            },
            {
              question: "Active transport uses energy from ATP.",
              type: "true_false",
              options: ["True", "False"],
              correctAnswer: "True",
              explanation: "The handout says so.",
              ...cite(HANDOUT.documentId, null),
            },
          ],
        });
      const quiz = await generator().generateQuiz({ ...FROM_DOCUMENT, questionCount: 1 });
      const { response_format, messages } = body(peer.requests[0]);
      expect(response_format.json_schema.schema).toEqual(strictJsonSchema(quizAnswerSchemaFor({ notes: false, documents: true })));
      expect(messages[0].content).toContain("explanation says why it is correct, from the documents.");
      expect(quiz.questions).toHaveLength(1);
      expect(quiz.questions[0].source).toEqual({ documentId: HANDOUT.documentId, page: 1 });

      peer.requests.length = 0;
      reply = () =>
        completion({
          ...STUDY_GUIDE_ANSWER,
          sections: [
            { title: "Osmosis", content: "Water crosses the membrane.", subsections: [], ...cite(HANDOUT.documentId, 1) },
            // No page cited: its words (sodium, potassium, pump) are on page 2.
            { title: "Pumps", content: "The sodium potassium pump.", subsections: [], ...cite(HANDOUT.documentId, null) },
          ],
        });
      const guide = await generator().generateStudyGuide(FROM_DOCUMENT);
      expect(body(peer.requests[0]).response_format.json_schema.schema).toEqual(
        strictJsonSchema(studyGuideAnswerSchemaFor({ notes: false, documents: true })),
      );
      expect(guide.sections.map((section) => section.source)).toEqual([
        { documentId: HANDOUT.documentId, page: 1 },
        { documentId: HANDOUT.documentId, page: 2 },
      ]);
    });

    it("cites notes and documents side by side when a request has both", async () => {
      reply = () =>
        completion({
          title: "Mixed",
          description: "",
          cards: [
            { front: "What absorbs light?", back: "Chlorophyll.", ...source(LECTURE.noteId, 0), ...cite(null, null) },
            { front: "What is osmosis?", back: "Diffusion of water.", ...source(null, null), ...cite(HANDOUT.documentId, 1) },
          ],
        });
      const set = await generator().generateFlashcards({ ...INPUT, documents: [HANDOUT], cardCount: 2 });
      const { response_format, messages } = body(peer.requests[0]);
      const card = (response_format.json_schema.schema as { properties: { cards: { items: { required: string[] } } } }).properties.cards.items;
      expect(card.required).toEqual(["front", "back", "sourceNoteId", "sourceStartTime", "sourceDocumentId", "sourcePage"]);
      expect(messages[0].content).toContain("An item based on a note has null document fields; one based on a document has null note fields.");
      expect(messages[1].content).toContain("Notes and documents:");
      expect(messages[1].content).toContain(`[note ${LECTURE.noteId}, t=0.0] Light is absorbed by chlorophyll.`);
      expect(messages[1].content).toContain(`[document ${HANDOUT.documentId}, p=2] Active transport uses energy from ATP.`);
      expect(set.cards.map((item) => item.source)).toEqual([
        { noteId: LECTURE.noteId, startTime: 0 },
        { documentId: HANDOUT.documentId, page: 1 },
      ]);
    });

    it.each([
      ["flashcards", flashcardSetAnswerSchemaFor, flashcardSetAnswerSchema],
      ["quiz", quizAnswerSchemaFor, quizAnswerSchema],
      ["study guide", studyGuideAnswerSchemaFor, studyGuideAnswerSchema],
    ] as const)(
      "sends a %s schema for documents that strict mode accepts, and the original one for notes only",
      (_material, schemaFor, notesSchema) => {
        expect(strictJsonSchema(schemaFor({ notes: true, documents: false }))).toEqual(strictJsonSchema(notesSchema));
        for (const kinds of [
          { notes: false, documents: true },
          { notes: true, documents: true },
        ]) {
          for (const object of objectSchemas(strictJsonSchema(schemaFor(kinds)))) {
            expect(object.additionalProperties).toBe(false);
            expect(object.required).toEqual(Object.keys(object.properties as object));
          }
        }
      },
    );
  });
});
