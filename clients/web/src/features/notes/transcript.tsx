import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useRef, useState, type KeyboardEvent } from "react";
import type { Schema } from "@study/sdk";
import { formatSecond } from "../../lib/time";

export type Segment = Schema<"TranscriptSegment">;

/**
 * The index of the segment playing at `second`: the last one that started at or before it (segments are sorted by
 * their start), or -1 before the first. Binary search: a one-hour lecture has thousands of segments, and the
 * player reports its time several times a second.
 */
export function segmentAt(segments: readonly Pick<Segment, "startTime">[], second: number): number {
  let low = 0;
  let high = segments.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (segments[middle].startTime <= second) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}

interface RowProps {
  segment: Segment;
  index: number;
  active: boolean;
  tabbable: boolean;
  onSeek: (second: number) => void;
  onFocusIndex: (index: number) => void;
}

const Row = memo(function Row({ segment, index, active, tabbable, onSeek, onFocusIndex }: RowProps) {
  return (
    <button
      type="button"
      className="segment"
      data-index={index}
      aria-current={active ? "true" : undefined}
      tabIndex={tabbable ? 0 : -1}
      onClick={() => onSeek(segment.startTime)}
      onFocus={() => onFocusIndex(index)}
    >
      <span className="segment-time">
        <span className="visually-hidden">Play from </span>
        {formatSecond(segment.startTime)}
      </span>
      <span className="segment-text">
        {segment.speaker ? <strong>{segment.speaker}: </strong> : null}
        {segment.text}
      </span>
    </button>
  );
});

/** After this long without the person scrolling the transcript, it follows the audio again. */
const FOLLOW_AFTER_MS = 4000;

/**
 * The transcript as buttons, one per segment, only those in view rendered (@tanstack/react-virtual), so a lecture
 * of thousands of segments stays fast. One tab stop: arrow keys, Page Up/Down, Home and End move between segments,
 * Enter or a click plays from a segment's start. The playing segment is highlighted and kept in view, unless the
 * person scrolled the list in the last few seconds.
 */
export function Transcript({
  segments,
  activeIndex,
  onSeek,
}: {
  segments: readonly Segment[];
  activeIndex: number;
  onSeek: (second: number) => void;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const [focusIndex, setFocusIndex] = useState(0);
  const moveFocus = useRef(false);
  const lastUserScroll = useRef(0);
  const virtualizer = useVirtualizer({
    count: segments.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 56,
    overscan: 6,
  });

  // The playing segment stays in view (and becomes the list's tab stop).
  useEffect(() => {
    if (activeIndex < 0) return;
    setFocusIndex(activeIndex);
    if (Date.now() - lastUserScroll.current < FOLLOW_AFTER_MS) return;
    if (scroller.current?.contains(document.activeElement)) return;
    virtualizer.scrollToIndex(activeIndex, { align: "auto" });
  }, [activeIndex, virtualizer]);

  // Focus follows the arrow keys once the row is rendered.
  useEffect(() => {
    if (!moveFocus.current) return;
    const row = scroller.current?.querySelector<HTMLElement>(`button[data-index="${String(focusIndex)}"]`);
    if (row) {
      moveFocus.current = false;
      row.focus({ preventScroll: true });
    }
  });

  const go = (index: number) => {
    const target = Math.max(0, Math.min(segments.length - 1, index));
    moveFocus.current = true;
    lastUserScroll.current = Date.now();
    setFocusIndex(target);
    virtualizer.scrollToIndex(target, { align: "auto" });
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? 400) / 56));
    const moves: Record<string, number> = {
      ArrowDown: focusIndex + 1,
      ArrowUp: focusIndex - 1,
      PageDown: focusIndex + page,
      PageUp: focusIndex - page,
      Home: 0,
      End: segments.length - 1,
    };
    if (!(event.key in moves)) return;
    event.preventDefault();
    go(moves[event.key]);
  };

  const userScrolled = () => {
    lastUserScroll.current = Date.now();
  };

  const rows = virtualizer.getVirtualItems();
  // The list's one tab stop: the focused (or playing) segment, or the first one in view when that one is not.
  const tabStop = rows.some((row) => row.index === focusIndex) ? focusIndex : (rows[0]?.index ?? -1);

  return (
    <div
      ref={scroller}
      className="transcript"
      role="list"
      aria-label="Transcript segments: arrow keys move, Enter plays from a segment"
      onKeyDown={onKeyDown}
      onWheel={userScrolled}
      onTouchMove={userScrolled}
    >
      <div style={{ height: virtualizer.getTotalSize(), position: "relative", width: "100%" }}>
        {rows.map((row) => (
          <div
            key={row.key}
            role="listitem"
            aria-setsize={segments.length}
            aria-posinset={row.index + 1}
            data-index={row.index}
            ref={virtualizer.measureElement}
            className="segment-row"
            style={{ position: "absolute", top: 0, left: 0, width: "100%", transform: `translateY(${String(row.start)}px)` }}
          >
            <Row
              segment={segments[row.index]}
              index={row.index}
              active={row.index === activeIndex}
              tabbable={row.index === tabStop}
              onSeek={onSeek}
              onFocusIndex={setFocusIndex}
            />
          </div>
        ))}
      </div>
    </div>
  );
}
