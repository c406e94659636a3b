import { newId } from "@study/grpc/ids";
import type { GenerationCommand } from "../domain/generation-request";
import { renderStudyGuideMarkdown, type StudyGuide } from "../domain/study-guide";
import { assertValidStudyGuide } from "../domain/study-material";
import type { GenerationSources } from "./generation-sources";
import { generateOnce, type GenerationOutcome } from "./generate-once";
import type { StudyMaterialGenerator } from "./ports/study-material-generator.port";
import type { StudyGuideRepository } from "./ports/study-repositories.port";
import { studyGuideCreated } from "./study-events";

export class GenerateStudyGuide {
  constructor(
    private readonly guides: StudyGuideRepository,
    private readonly generator: StudyMaterialGenerator,
    private readonly sources: GenerationSources,
  ) {}

  async execute(command: GenerationCommand, signal?: AbortSignal): Promise<GenerationOutcome<StudyGuide>> {
    const request = await this.sources.read(command);
    return generateOnce({
      kind: "study-guide",
      request,
      repository: this.guides,
      createdEvent: studyGuideCreated,
      build: async (origin) => {
        const generated = await this.generator.generateStudyGuide(request, signal);
        assertValidStudyGuide(generated);
        const parts = {
          title: generated.title.trim(),
          description: generated.description.trim() || null,
          overview: generated.overview.trim(),
          keyTerms: generated.keyTerms,
          learningObjectives: generated.learningObjectives,
          studyTips: generated.studyTips,
          sections: generated.sections.map((section, order) => ({
            id: newId(),
            studyGuideId: origin.id,
            title: section.title.trim(),
            content: section.content.trim(),
            order,
            subsections: section.subsections,
            source: section.source,
          })),
        };
        return { ...origin, ...parts, generator: this.generator.name, markdown: renderStudyGuideMarkdown(parts) };
      },
    });
  }
}
