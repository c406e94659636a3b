import type { Difficulty } from "../../../domain/study-material";

/** How a difficulty level steers every choice the generator makes. */
export interface DifficultyProfile {
  /** Which key terms to ask about: 0 the most frequent, 1 the least frequent. */
  targetRarity: number;
  /** -1 prefers facts early in the text, 0 anywhere, 1 facts deeper in it. */
  depthPreference: number;
  /** Relative preference for definition and cloze cards and questions. */
  kindWeights: { definition: number; cloze: number };
  /** Definition cards ask for the term from its definition instead of the definition from the term. */
  reverseDefinitions: boolean;
  /** Share of true/false questions in a quiz; the rest are multiple choice. */
  trueFalseShare: number;
  /** Distractors by similarity to the answer: the least similar (easy to rule out), a spread, or the most similar. */
  distractors: "least similar" | "spread" | "most similar";
  /** Bullets per study-guide section at most. */
  bulletsPerSection: number;
  /** Learning-objective verbs, in Bloom's order, as many objectives of each as given. */
  objectives: { define: number; explain: number; compare: number };
  /** The study guide's last tip: how to space reviews at this level. */
  reviewTip: string;
}

const PROFILES: Record<Difficulty, DifficultyProfile> = {
  EASY: {
    targetRarity: 0.1,
    depthPreference: -1,
    kindWeights: { definition: 3, cloze: 1 },
    reverseDefinitions: false,
    trueFalseShare: 0.5,
    distractors: "least similar",
    bulletsPerSection: 4,
    objectives: { define: 3, explain: 1, compare: 0 },
    reviewTip: "Review this guide again tomorrow and once more in three days.",
  },
  MEDIUM: {
    targetRarity: 0.45,
    depthPreference: 0,
    kindWeights: { definition: 1.5, cloze: 1.2 },
    reverseDefinitions: false,
    trueFalseShare: 0.4,
    distractors: "spread",
    bulletsPerSection: 5,
    objectives: { define: 2, explain: 2, compare: 1 },
    reviewTip: "Space your reviews: after one day, three days and a week, answer the learning objectives from memory before rereading.",
  },
  HARD: {
    targetRarity: 0.85,
    depthPreference: 1,
    kindWeights: { definition: 0.9, cloze: 1.5 },
    reverseDefinitions: true,
    trueFalseShare: 0.3,
    distractors: "most similar",
    bulletsPerSection: 6,
    objectives: { define: 1, explain: 2, compare: 2 },
    reviewTip:
      "Test yourself with your notes closed after one, three and seven days: explain each section aloud, then check the bullets for what you missed.",
  },
};

export function difficultyProfile(difficulty: Difficulty): DifficultyProfile {
  return PROFILES[difficulty] ?? PROFILES.MEDIUM;
}

/** How well a term's rarity matches the level, 0-1. */
export function rarityFit(profile: DifficultyProfile, rarity: number): number {
  return 1 - Math.abs(rarity - profile.targetRarity);
}

/** A factor around 1 that favours early (EASY) or late (HARD) positions in a note. */
export function depthFit(profile: DifficultyProfile, position: number): number {
  return 1 + 0.3 * profile.depthPreference * (2 * position - 1);
}
