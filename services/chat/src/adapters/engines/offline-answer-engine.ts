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

  // The retrieval query, not the bare question: a follow-up ("and when?") is matched with the question it follows.
  async *answer(input: { query: string; passages: readonly Passage[]; following: readonly Passage[] }): AsyncGenerator<AnswerPiece> {
    const { text, citations } = offlineAnswer(input.query, input.passages, this.settings, input.following);
    for (const line of text.split(/(?<=\n)/u)) yield { token: line };
    yield { citations };
  }
}
