import type { AnswerEngine, AnswerPiece } from "../../application/ports/chat-ports.port";
import { DEFAULT_OFFLINE_SETTINGS, offlineAnswer, type OfflineAnswerSettings } from "../../domain/offline-answer";
import type { Passage } from "../../domain/passage";

/**
 * The default engine, without a language model: it quotes the best-matching passages (see offlineAnswer), streamed
 * a line at a time so that clients show it the way they show a model's answer, then its citations.
 */
export class OfflineAnswerEngine implements AnswerEngine {
  readonly name = "offline";

  constructor(private readonly settings: OfflineAnswerSettings = DEFAULT_OFFLINE_SETTINGS) {}

  async *answer(input: { question: string; passages: readonly Passage[] }): AsyncGenerator<AnswerPiece> {
    const { text, citations } = offlineAnswer(input.question, input.passages, this.settings);
    for (const line of text.split(/(?<=\n)/u)) yield { token: line };
    yield { citations };
  }
}
