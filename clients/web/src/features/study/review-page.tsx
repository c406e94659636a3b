import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { fetchFlashcardSet, studyKeys } from "./queries";
import { ReviewSession } from "./review-session";
import "./study.css";

/** `/review`: the cards due across every set, soonest first. */
export function ReviewPage() {
  return (
    <>
      <h1>Review</h1>
      <p className="muted">The cards of all your sets that are due now, soonest first.</p>
      <ReviewSession />
    </>
  );
}

/** `/study/flashcards/:setId/review`: studying one set's due cards. */
export function SetReviewPage() {
  const { setId = "" } = useParams();
  const set = useQuery({ queryKey: studyKeys.flashcardSet(setId), queryFn: () => fetchFlashcardSet(setId) });
  return (
    <>
      <h1>Study: {set.data?.title ?? "flashcards"}</h1>
      <p>
        <Link to={`/study/flashcards/${setId}`}>Back to the set</Link>
      </p>
      <ReviewSession flashcardSetId={setId} />
    </>
  );
}
