import { callOpenAi, type OpenAiClient } from "@study/ai";
import type { Logger } from "@study/platform";
import { AppError, isAppError, type FieldViolation } from "@study/platform/errors";
import type { z } from "zod";
import type { GenerationInput, StudyMaterialGenerator } from "../../../application/ports/study-material-generator.port";
import {
  assertValidFlashcardSet,
  assertValidQuiz,
  assertValidStudyGuide,
  type GeneratedFlashcardSet,
  type GeneratedQuiz,
  type GeneratedStudyGuide,
} from "../../../domain/study-material";
import { flashcardSetAnswerSchemaFor, quizAnswerSchemaFor, strictJsonSchema, studyGuideAnswerSchemaFor, type SourceKinds } from "./answer-schemas";
import { flashcardMessages, quizMessages, studyGuideMessages, type ChatMessage } from "./prompts";
import { SourceIndex } from "./source-text";

/** ~15 000 tokens of notes: room for the answer in any current context window, at a bounded cost per request. */
export const DEFAULT_MAX_INPUT_CHARS = 60_000;
/** Writing fifty cards or a full guide takes a while; longer than a summary's default timeout. */
export const DEFAULT_GENERATION_TIMEOUT_MS = 180_000;
/** The first answer and one more after a malformed one; models rarely fail the same way twice. */
const MAX_ATTEMPTS = 2;

export interface OpenAiStudyMaterialGeneratorOptions {
  client: OpenAiClient;
  model?: string;
  /** Longer notes are sent as evenly spaced passages of this many characters in all. */
  maxInputChars?: number;
  /** Per request to the model, instead of the client's default. */
  requestTimeoutMs?: number;
  logger?: Logger;
}

/** One material to generate: how to ask for it, and how to turn the parsed answer into checked domain output. */
interface MaterialRequest<Answer, Material> {
  /** As in the domain's messages: "flashcards", "quiz", "study guide". */
  what: string;
  schemaName: string;
  answerSchema: z.ZodType<Answer>;
  messages: ChatMessage[];
  toMaterial(answer: Answer): Material;
  /** The domain's assertValid*: throws GENERATION_INVALID. */
  assertValid(material: Material): void;
}

function invalidAnswer(what: string, problem: string, details: FieldViolation[] = []): AppError {
  return new AppError("unavailable", "GENERATION_INVALID", `The AI service's ${what} answer was unusable (${problem}); nothing was stored`, {
    details,
  });
}

const isInvalidGeneration = (error: unknown): error is AppError => isAppError(error) && error.code === "GENERATION_INVALID";

/** Tells the model, on the second attempt, what was wrong with the first. */
function retryMessage(rejection: AppError): ChatMessage {
  const problems = [rejection.message, ...rejection.details.map((detail) => `${detail.field}: ${detail.message}`)];
  return {
    role: "user",
    content: `An earlier answer to this request was rejected:\n- ${problems.join("\n- ")}\nAnswer again, following every rule.`,
  };
}

/** A zod issue's path written like the domain's fields: `questions[0].options`. */
const fieldPath = (path: PropertyKey[]) =>
  path.reduce<string>((field, key) => (typeof key === "number" ? `${field}[${key}]` : field ? `${field}.${String(key)}` : String(key)), "") ||
  "(answer)";

const trimmedNonBlank = (texts: string[]) => texts.map((text) => text.trim()).filter(Boolean);

const sourceKinds = (input: GenerationInput): SourceKinds => ({ notes: input.notes.length > 0, documents: (input.documents ?? []).length > 0 });

const sourceIndex = (input: GenerationInput) => new SourceIndex(input.notes, input.documents);

/**
 * Study material written by a chat model (OPENAI_MODEL, or any model of an OpenAI-compatible server) as a strict
 * structured output. The answer is parsed with the schema it was asked for, mapped to the domain (sources snapped
 * onto the notes' segments and the documents' pages) and checked by the domain's rules; a truncated, refused, malformed or rule-breaking
 * answer is asked for once more, then refused whole with GENERATION_INVALID.
 */
export class OpenAiStudyMaterialGenerator implements StudyMaterialGenerator {
  readonly name: string;
  private readonly client: OpenAiClient;
  private readonly model: string;
  private readonly maxInputChars: number;
  private readonly requestTimeoutMs: number;
  private readonly logger?: Logger;

  constructor(options: OpenAiStudyMaterialGeneratorOptions) {
    this.client = options.client;
    this.model = options.model ?? "gpt-4o-mini";
    this.maxInputChars = options.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_GENERATION_TIMEOUT_MS;
    this.logger = options.logger;
    this.name = `openai:${this.model}`;
  }

  generateFlashcards(input: GenerationInput & { cardCount: number }, signal?: AbortSignal): Promise<GeneratedFlashcardSet> {
    const sources = sourceIndex(input);
    return this.generate(
      {
        what: "flashcards",
        schemaName: "flashcard_set",
        answerSchema: flashcardSetAnswerSchemaFor(sourceKinds(input)),
        messages: flashcardMessages(input, this.maxInputChars),
        toMaterial: (answer) => ({
          title: answer.title.trim(),
          description: answer.description.trim(),
          cards: answer.cards.slice(0, input.cardCount).map((card) => ({
            front: card.front.trim(),
            back: card.back.trim(),
            source: sources.cite(card, `${card.front} ${card.back}`),
          })),
        }),
        assertValid: assertValidFlashcardSet,
      },
      signal,
    );
  }

  generateQuiz(input: GenerationInput & { questionCount: number }, signal?: AbortSignal): Promise<GeneratedQuiz> {
    const sources = sourceIndex(input);
    return this.generate(
      {
        what: "quiz",
        schemaName: "quiz",
        answerSchema: quizAnswerSchemaFor(sourceKinds(input)),
        messages: quizMessages(input, this.maxInputChars),
        toMaterial: (answer) => ({
          title: answer.title.trim(),
          description: answer.description.trim(),
          questions: answer.questions.slice(0, input.questionCount).map((question) => ({
            question: question.question.trim(),
            type: question.type,
            options: question.options.map((option) => option.trim()),
            correctAnswer: question.correctAnswer.trim(),
            explanation: question.explanation.trim(),
            source: sources.cite(question, `${question.question} ${question.correctAnswer} ${question.explanation}`),
          })),
        }),
        assertValid: assertValidQuiz,
      },
      signal,
    );
  }

  generateStudyGuide(input: GenerationInput, signal?: AbortSignal): Promise<GeneratedStudyGuide> {
    const sources = sourceIndex(input);
    return this.generate(
      {
        what: "study guide",
        schemaName: "study_guide",
        answerSchema: studyGuideAnswerSchemaFor(sourceKinds(input)),
        messages: studyGuideMessages(input, this.maxInputChars),
        toMaterial: (answer) => ({
          title: answer.title.trim(),
          description: answer.description.trim(),
          overview: answer.overview.trim(),
          keyTerms: trimmedNonBlank(answer.keyTerms),
          learningObjectives: trimmedNonBlank(answer.learningObjectives),
          studyTips: trimmedNonBlank(answer.studyTips),
          sections: answer.sections.map((section) => ({
            title: section.title.trim(),
            content: section.content.trim(),
            subsections: section.subsections.map((subsection) => ({ title: subsection.title.trim(), content: subsection.content.trim() })),
            source: sources.cite(section, `${section.title} ${section.content}`),
          })),
        }),
        assertValid: assertValidStudyGuide,
      },
      signal,
    );
  }

  private async generate<Answer, Material>(request: MaterialRequest<Answer, Material>, signal?: AbortSignal): Promise<Material> {
    const responseFormat = {
      type: "json_schema" as const,
      json_schema: { name: request.schemaName, strict: true, schema: strictJsonSchema(request.answerSchema) },
    };
    let rejection: AppError | undefined;
    for (let attempt = 1; ; attempt++) {
      const messages = rejection ? [...request.messages, retryMessage(rejection)] : request.messages;
      const completion: unknown = await callOpenAi(
        () =>
          this.client.chat.completions.create(
            { model: this.model, messages, response_format: responseFormat },
            { signal, timeout: this.requestTimeoutMs },
          ),
        signal,
      );
      try {
        const material = request.toMaterial(this.readAnswer(completion, request));
        request.assertValid(material);
        return material;
      } catch (error) {
        if (!isInvalidGeneration(error)) throw error;
        this.logger?.warn(
          { generator: this.name, material: request.what, attempt, problem: error.message, details: error.details },
          "The model's answer was rejected",
        );
        if (attempt >= MAX_ATTEMPTS) throw error;
        rejection = error;
      }
    }
  }

  /** The answer's JSON, parsed with the schema it was asked for; GENERATION_INVALID when there is none. */
  private readAnswer<Answer>(completion: unknown, request: MaterialRequest<Answer, unknown>): Answer {
    // Compatible servers vary; check the shape instead of trusting the SDK's types.
    type Choice = { message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown };
    const choice = (completion as { choices?: Choice[] } | null)?.choices?.[0];
    if (!choice?.message) {
      throw new AppError("unavailable", "AI_MALFORMED_RESPONSE", "The AI service's answer is not a chat completion (no message in choices[0])");
    }
    const { content, refusal } = choice.message;
    if (choice.finish_reason === "length") throw invalidAnswer(request.what, "cut off at the model's length limit");
    if (choice.finish_reason === "content_filter" || (typeof refusal === "string" && refusal.trim())) {
      throw invalidAnswer(request.what, `the model refused${typeof refusal === "string" && refusal.trim() ? `: ${refusal.trim()}` : ""}`);
    }
    if (typeof content !== "string" || !content.trim()) throw invalidAnswer(request.what, "no content");
    let json: unknown;
    try {
      json = JSON.parse(content);
    } catch {
      throw invalidAnswer(request.what, "not valid JSON");
    }
    const parsed = request.answerSchema.safeParse(json);
    if (!parsed.success) {
      const details = parsed.error.issues.map((issue) => ({ field: fieldPath(issue.path), message: issue.message }));
      throw invalidAnswer(request.what, "does not match the schema", details);
    }
    return parsed.data;
  }
}
