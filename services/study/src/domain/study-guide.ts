import type { MaterialOrigin } from "./flashcard-set";
import type { GeneratedStudySubsection, SourceReference } from "./study-material";

export interface StudySection {
  id: string;
  studyGuideId: string;
  title: string;
  content: string;
  order: number;
  subsections: GeneratedStudySubsection[];
  source: SourceReference | null;
}

/**
 * A study guide holds the structured parts (the spec's shape B) and the markdown rendered from them when it
 * was generated (shape A's `content`): the two never disagree because the markdown is derived, not edited.
 */
export interface StudyGuide extends MaterialOrigin {
  markdown: string;
  overview: string;
  keyTerms: string[];
  learningObjectives: string[];
  studyTips: string[];
  sections: StudySection[];
}

type GuideParts = Pick<StudyGuide, "title" | "description" | "overview" | "keyTerms" | "learningObjectives" | "studyTips"> & {
  sections: Pick<StudySection, "title" | "content" | "subsections">[];
};

const bullets = (items: readonly string[]) => items.map((item) => `- ${item}`).join("\n");

/** Shape A's markdown: title, overview, key terms, objectives, the sections in order, then study tips. */
export function renderStudyGuideMarkdown(guide: GuideParts): string {
  const blocks = [`# ${guide.title}`];
  if (guide.description) blocks.push(`_${guide.description}_`);
  blocks.push(`## Overview\n\n${guide.overview}`);
  if (guide.keyTerms.length) blocks.push(`## Key terms\n\n${bullets(guide.keyTerms)}`);
  if (guide.learningObjectives.length) blocks.push(`## Learning objectives\n\n${bullets(guide.learningObjectives)}`);
  for (const section of guide.sections) {
    blocks.push(`## ${section.title}\n\n${section.content.trim()}`);
    for (const subsection of section.subsections) blocks.push(`### ${subsection.title}\n\n${subsection.content.trim()}`);
  }
  if (guide.studyTips.length) blocks.push(`## Study tips\n\n${bullets(guide.studyTips)}`);
  return `${blocks.join("\n\n")}\n`;
}
