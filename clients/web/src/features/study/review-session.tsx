import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Button as AriaButton } from "react-aria-components";
import { Link } from "react-router";
import { Button } from "../../components/fields";
import { Empty, ErrorMessage, Loading } from "../../components/page-state";
import { fetchDue, reviewCard, studyKeys, type DueCard, type Rating } from "./queries";
import { cardsToReview, intervalsOf, RATINGS } from "./review-queue";
import { SourceLink, useNoteTitles } from "./source-link";
import { useReviewKeys } from "./use-review-keys";

interface ReviewSessionProps {
  /** One set's cards, or every set's when absent (the due-review queue). */
  flashcardSetId?: string;
}

/**
 * Studying the due cards one at a time: the front, "Show answer" (Space), then a rating (keys 1 to 4), each
 * button saying when the card would come back. When the fetched cards are done, the API is asked again: more
 * cards due (past the list's limit, or an "again" come due) continue the session, none ends it.
 */
export function ReviewSession({ flashcardSetId }: ReviewSessionProps) {
  const queryClient = useQueryClient();
  const due = useQuery({ queryKey: studyKeys.due(flashcardSetId), queryFn: () => fetchDue(flashcardSetId), refetchOnWindowFocus: false });
  const [rated, setRated] = useState<ReadonlyMap<string, string | null>>(new Map());
  const [revealed, setRevealed] = useState(false);
  const [lastRatedAt, setLastRatedAt] = useState(0);
  const [announcement, setAnnouncement] = useState("");
  const [reviewedCount, setReviewedCount] = useState(0);

  const remaining = due.data ? cardsToReview(due.data.cards, rated) : [];
  const card: DueCard | undefined = remaining[0];
  const fetchedAfterRating = due.dataUpdatedAt > lastRatedAt;

  const review = useMutation({
    mutationFn: ({ card: reviewed, rating }: { card: DueCard; rating: Rating }) => reviewCard(reviewed, rating),
    onSuccess: (answer, { card: reviewed, rating }) => {
      setRated((previous) => new Map(previous).set(reviewed.id, answer.flashcard.schedule.lastReview));
      setRevealed(false);
      setLastRatedAt(Date.now());
      setReviewedCount((count) => count + 1);
      const label = RATINGS.find((entry) => entry.rating === rating)?.label ?? rating;
      setAnnouncement(`Rated ${label}. Next review ${new Date(answer.nextReviewAt).toLocaleString()}.`);
      // The set's schedules and the other due lists changed (this session's own list is asked again at its end).
      void queryClient.invalidateQueries({ queryKey: studyKeys.flashcardSet(reviewed.flashcardSetId) });
      void queryClient.invalidateQueries({
        predicate: ({ queryKey }) => queryKey[0] === "study" && queryKey[1] === "due" && queryKey[2] !== (flashcardSetId ?? "all"),
      });
    },
  });

  // The fetched cards are done: ask the API whether more are due.
  const { refetch, isFetching } = due;
  useEffect(() => {
    if (due.data && !card && !fetchedAfterRating && !isFetching) void refetch();
  }, [due.data, card, fetchedAfterRating, isFetching, refetch]);

  const busy = review.isPending;
  const rate = (rating: Rating) => {
    if (card && revealed && !busy) review.mutate({ card, rating });
  };
  const reveal = () => setRevealed(true);
  useReviewKeys({ revealed, enabled: Boolean(card) && !busy, onReveal: reveal, onRate: rate });

  // Focus follows the card: the answer when it shows, "Show answer" for the next card.
  const answerRef = useRef<HTMLDivElement>(null);
  const showRef = useRef<HTMLButtonElement>(null);
  const focusMoves = useRef(false);
  useEffect(() => {
    if (!focusMoves.current) return;
    if (revealed) answerRef.current?.focus();
    else showRef.current?.focus();
  }, [revealed, card?.id]);
  useEffect(() => {
    focusMoves.current = true;
  }, []);

  const titleOf = useNoteTitles(null);

  if (due.isPending) return <Loading label="Loading the cards due for review…" />;
  if (due.error) return <ErrorMessage error={due.error} onRetry={() => void due.refetch()} />;
  if (!card) {
    if (!fetchedAfterRating || isFetching) return <Loading label="Checking for more cards due…" />;
    return (
      <Empty>
        <p role="status">
          {reviewedCount > 0
            ? `All done: you reviewed ${reviewedCount} ${reviewedCount === 1 ? "card" : "cards"} and nothing else is due now.`
            : "Nothing is due for review now."}
        </p>
        <p>
          <Link to="/study">Back to your study material</Link>
        </p>
      </Empty>
    );
  }

  const intervals = intervalsOf(card, due.dataUpdatedAt);
  const left = Math.max(remaining.length, due.data.totalDue - reviewedCount);
  return (
    <section className="review" aria-labelledby="review-card-heading">
      <p className="muted" role="status">
        {left} {left === 1 ? "card" : "cards"} due · {card.flashcardSetTitle}
      </p>
      <div className="flashcard">
        <h2 id="review-card-heading" className="visually-hidden">
          Card
        </h2>
        <p className="flashcard-label">Front</p>
        <p className="flashcard-text">{card.front}</p>
        {revealed ? (
          <div ref={answerRef} tabIndex={-1} className="flashcard-answer" aria-label="Answer">
            <p className="flashcard-label">Back</p>
            <p className="flashcard-text">{card.back}</p>
            <SourceLink source={card.source} titleOf={titleOf} />
          </div>
        ) : (
          <AriaButton ref={showRef} className="button primary" onPress={reveal} aria-keyshortcuts="Space">
            Show answer
          </AriaButton>
        )}
      </div>
      {revealed && (
        <div className="ratings" role="group" aria-label="How well did you know it?">
          {RATINGS.map(({ rating, label, key }) => (
            <Button key={rating} variant="secondary" className="rating" onPress={() => rate(rating)} isDisabled={busy} aria-keyshortcuts={key}>
              <span className="rating-name">{label}</span> <span className="rating-interval">in {intervals[rating]}</span>
              <kbd aria-hidden="true">{key}</kbd>
            </Button>
          ))}
        </div>
      )}
      <p className="muted keys-hint">Keys: Space shows the answer, then 1 Again, 2 Hard, 3 Good, 4 Easy.</p>
      {review.error && <ErrorMessage error={review.error} />}
      <p className="visually-hidden" aria-live="polite">
        {announcement}
      </p>
    </section>
  );
}
