import { useEffect, useRef } from "react";
import type { Rating } from "./queries";
import { RATINGS } from "./review-queue";

export interface ReviewKeyOptions {
  /** Whether the card's answer is showing (ratings are taken only then). */
  revealed: boolean;
  /** No keys while false (no card, or a rating on its way). */
  enabled: boolean;
  onReveal: () => void;
  onRate: (rating: Rating) => void;
}

/** Keys typed into a field, or pressed on a control that handles them itself, are not review keys. */
function ownsKeys(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  return target.closest("input, textarea, select, [role='textbox'], [role='listbox'], [role='menu'], [role='dialog']") !== null;
}

/**
 * The flashcard review's keys, on the whole page: Space (or Enter) shows the answer; then 1 to 4 rate the card
 * Again, Hard, Good or Easy. A held key does not repeat, and keys with Ctrl, Alt or Meta are left to the browser.
 * Space and Enter on a focused button press that button (the browser's own behaviour), not the review.
 */
export function useReviewKeys({ revealed, enabled, onReveal, onRate }: ReviewKeyOptions): void {
  // The latest callbacks without re-adding the listener on each render.
  const latest = useRef({ revealed, enabled, onReveal, onRate });
  useEffect(() => {
    latest.current = { revealed, enabled, onReveal, onRate };
  });

  useEffect(() => {
    function onKeyDown(event: KeyboardEvent) {
      const current = latest.current;
      if (!current.enabled || event.defaultPrevented || event.repeat) return;
      if (event.ctrlKey || event.altKey || event.metaKey) return;
      if (ownsKeys(event.target)) return;
      const onButton = event.target instanceof HTMLElement && event.target.closest("button, a, [role='button']") !== null;
      if (!current.revealed) {
        if ((event.key === " " || event.key === "Enter") && !onButton) {
          event.preventDefault();
          current.onReveal();
        }
        return;
      }
      const choice = RATINGS.find((entry) => entry.key === event.key);
      if (choice) {
        event.preventDefault();
        current.onRate(choice.rating);
      }
    }
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, []);
}
