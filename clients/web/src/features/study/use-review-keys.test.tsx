import { fireEvent, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import type { Rating } from "./queries";
import { useReviewKeys } from "./use-review-keys";

/** A card as the review page drives it: hidden answer, revealed by the keys, then rated. */
function Card({ enabled = true, onRate }: { enabled?: boolean; onRate: (rating: Rating) => void }) {
  const [revealed, setRevealed] = useState(false);
  useReviewKeys({
    revealed,
    enabled,
    onReveal: () => setRevealed(true),
    onRate: (rating) => {
      onRate(rating);
      setRevealed(false);
    },
  });
  return (
    <div>
      <p>{revealed ? "Answer showing" : "Front only"}</p>
      <label>
        Note to self
        <input />
      </label>
      <button type="button">Another control</button>
    </div>
  );
}

describe("useReviewKeys", () => {
  it("shows the answer with Space, then rates with 1 to 4", async () => {
    const user = userEvent.setup();
    const onRate = vi.fn();
    render(<Card onRate={onRate} />);
    await user.keyboard("3");
    expect(onRate).not.toHaveBeenCalled();
    await user.keyboard(" ");
    expect(screen.getByText("Answer showing")).toBeTruthy();
    await user.keyboard("1");
    await user.keyboard(" ");
    await user.keyboard("2");
    await user.keyboard("{Enter}");
    await user.keyboard("3");
    await user.keyboard(" ");
    await user.keyboard("4");
    expect(onRate.mock.calls).toEqual([["again"], ["hard"], ["good"], ["easy"]]);
    expect(screen.getByText("Front only")).toBeTruthy();
  });

  it("takes no rating before the answer shows, and ignores other keys", async () => {
    const user = userEvent.setup();
    const onRate = vi.fn();
    render(<Card onRate={onRate} />);
    await user.keyboard("1234");
    expect(screen.getByText("Front only")).toBeTruthy();
    await user.keyboard(" ");
    await user.keyboard("5a0");
    expect(onRate).not.toHaveBeenCalled();
    expect(screen.getByText("Answer showing")).toBeTruthy();
  });

  it("leaves keys typed into a field, or pressed on another button, to them", async () => {
    const user = userEvent.setup();
    const onRate = vi.fn();
    render(<Card onRate={onRate} />);
    await user.click(screen.getByLabelText("Note to self"));
    await user.keyboard(" 3");
    expect(screen.getByText("Front only")).toBeTruthy();
    expect(screen.getByLabelText<HTMLInputElement>("Note to self").value).toBe(" 3");
    screen.getByRole("button", { name: "Another control" }).focus();
    await user.keyboard(" ");
    expect(screen.getByText("Front only")).toBeTruthy();
  });

  it("does nothing while disabled, for held keys, or with Ctrl, Alt or Meta", async () => {
    const user = userEvent.setup();
    const onRate = vi.fn();
    const { rerender } = render(<Card enabled={false} onRate={onRate} />);
    await user.keyboard(" ");
    expect(screen.getByText("Front only")).toBeTruthy();
    rerender(<Card onRate={onRate} />);
    await user.keyboard("{Control>} {/Control}");
    expect(screen.getByText("Front only")).toBeTruthy();
    await user.keyboard(" ");
    fireEvent.keyDown(window, { key: "3", repeat: true });
    await user.keyboard("{Alt>}3{/Alt}{Meta>}3{/Meta}");
    expect(onRate).not.toHaveBeenCalled();
    await user.keyboard("3");
    expect(onRate.mock.calls).toEqual([["good"]]);
  });

  it("stops listening when the page goes away", async () => {
    const user = userEvent.setup();
    const onRate = vi.fn();
    const added = vi.spyOn(window, "addEventListener");
    const removed = vi.spyOn(window, "removeEventListener");
    const { unmount } = render(<Card onRate={onRate} />);
    const listener = added.mock.calls.find(([type]) => type === "keydown")?.[1];
    unmount();
    expect(removed).toHaveBeenCalledWith("keydown", listener);
    await user.keyboard(" 3");
    expect(onRate).not.toHaveBeenCalled();
  });
});
