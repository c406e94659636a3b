import { newId } from "@study/grpc/ids";
import { questionCount, type GenerationCommand } from "../domain/generation-request";
import type { Quiz } from "../domain/quiz";
import { assertValidQuiz, shortfallMessage } from "../domain/study-material";
import type { GenerationSources } from "./generation-sources";
import { generateOnce, type GenerationOutcome } from "./generate-once";
import type { StudyMaterialGenerator } from "./ports/study-material-generator.port";
import type { QuizRepository } from "./ports/study-repositories.port";
import { quizCreated } from "./study-events";

export class GenerateQuiz {
  constructor(
    private readonly quizzes: QuizRepository,
    private readonly generator: StudyMaterialGenerator,
    private readonly sources: GenerationSources,
  ) {}

  async execute(command: GenerationCommand & { questionCount?: number }, signal?: AbortSignal): Promise<GenerationOutcome<Quiz>> {
    const count = questionCount(command.questionCount);
    const request = await this.sources.read(command);
    let shortfall: string | null = null;
    const outcome = await generateOnce({
      kind: "quiz",
      request,
      repository: this.quizzes,
      createdEvent: quizCreated,
      build: async (origin) => {
        const generated = await this.generator.generateQuiz({ ...request, questionCount: count }, signal);
        assertValidQuiz(generated);
        shortfall = shortfallMessage(generated.questions.length, count, "questions", generated.shortfallReason);
        return {
          ...origin,
          title: generated.title.trim(),
          description: generated.description.trim() || null,
          generator: this.generator.name,
          questions: generated.questions.map((question, order) => ({
            id: newId(),
            quizId: origin.id,
            question: question.question.trim(),
            type: question.type,
            options: question.options,
            correctAnswer: question.correctAnswer,
            explanation: question.explanation.trim() || null,
            order,
            source: question.source,
          })),
        };
      },
    });
    return { ...outcome, shortfall: outcome.created ? shortfall : null };
  }
}
