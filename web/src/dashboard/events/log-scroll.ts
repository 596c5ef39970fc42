/**
 * How the event list scrolls: it follows the newest events until the user scrolls up, keeps the
 * card in view where it was when history is prepended, and brings a jumped-to event into view.
 * Kept here, apart from the list's filters and cards.
 */
import { useEffect, useLayoutEffect, useRef, type KeyboardEvent, type PointerEvent, type RefObject, type WheelEvent } from 'react';
import type { TilthEvent } from '../../../../shared/events.ts';
import type { ListVirtualizer } from './use-list-virtualizer.ts';

/** A user scroll is one that follows a wheel turn, a key or a press on the scrollbar within this long. */
const USER_INPUT_MS = 800;

export function useLogScroll(options: {
  scrollRef: RefObject<HTMLDivElement | null>;
  virtualizer: ListVirtualizer;
  rows: readonly TilthEvent[];
  follow: boolean;
  setFollow: (follow: boolean) => void;
  /** The rows reach the log's newest event (following makes sense). */
  live: boolean;
}) {
  const { scrollRef, virtualizer, rows, follow, setFollow, live } = options;
  // The ref is what the layout pass reads, so a wheel turn stops following before the next
  // frame, not a render later.
  const following = useRef(follow);
  following.current = follow && live;
  const userInputAt = useRef(-Infinity);
  const markUser = () => {
    userInputAt.current = performance.now();
  };
  const stopFollowing = () => {
    markUser();
    following.current = false;
    setFollow(false);
  };

  /**
   * The card at the top of the view and how far into it the view starts. When history is
   * prepended (or the window trimmed at its front) the same card is put back at the same place,
   * before the browser paints, so reading older events never jumps.
   */
  const anchor = useRef<{ key: number; delta: number; firstKey: number } | null>(null);
  const noteAnchor = () => {
    const el = scrollRef.current;
    const item = el === null ? undefined : virtualizer.getVirtualItemForOffset(el.scrollTop);
    anchor.current = el === null || item === undefined ? null : { key: Number(item.key), delta: el.scrollTop - item.start, firstKey: rows[0]?.seq ?? 0 };
  };

  const totalSize = virtualizer.getTotalSize();
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el === null || rows.length === 0) return;
    if (following.current) {
      // The end from the virtualizer's own figures: reading scrollHeight here would lay the page
      // out one more time in every frame of a live run.
      const end = totalSize - (virtualizer.scrollRect?.height ?? el.clientHeight);
      if ((virtualizer.scrollOffset ?? 0) < end - 1) el.scrollTop = end;
      return;
    }
    const a = anchor.current;
    if (a !== null && rows[0]!.seq !== a.firstKey) {
      const index = rows.findIndex((e) => e.seq === a.key);
      const start = index === -1 ? undefined : virtualizer.getOffsetForIndex(index, 'start')?.[0];
      if (start !== undefined) el.scrollTop = start + a.delta;
      noteAnchor();
    }
  });

  return {
    onScroll: () => {
      noteAnchor();
      // Scrolling up is the user's say: it stops following; back at the end it resumes.
      if (performance.now() - userInputAt.current > USER_INPUT_MS) return;
      const el = scrollRef.current!;
      const atEnd = el.scrollHeight - el.scrollTop - el.clientHeight < 4;
      if (atEnd && live) setFollow(true);
      else if (!atEnd) setFollow(false);
    },
    onWheel: (e: WheelEvent) => (e.deltaY < 0 ? stopFollowing() : markUser()),
    onKeyDown: (e: KeyboardEvent) => (['ArrowUp', 'PageUp', 'Home'].includes(e.key) ? stopFollowing() : markUser()),
    // Only a press on the list itself (its scrollbar), not on a card's buttons.
    onPointerDown: (e: PointerEvent) => {
      if (e.target === e.currentTarget) markUser();
    },
    onTouchMove: markUser,
  };
}

export interface JumpRequest {
  seq: number;
  /** A new request for the same seq scrolls again. */
  nonce: number;
}

/**
 * Brings a jumped-to event into view. The request waits until the event is among the rows (its
 * page may still be loading; the filters may hide it, then `onHidden` clears them).
 */
export function useJump(options: {
  jump: JumpRequest | null;
  scrollRef: RefObject<HTMLDivElement | null>;
  virtualizer: ListVirtualizer;
  rows: readonly TilthEvent[];
  loaded: readonly TilthEvent[];
  filtering: boolean;
  onJumpStart: (seq: number) => void;
  onHidden: () => void;
}): void {
  const { jump, scrollRef, virtualizer, rows, loaded, filtering, onJumpStart, onHidden } = options;
  const pending = useRef<JumpRequest | null>(null);
  const cancel = useRef<() => void>(() => {});
  useEffect(() => () => cancel.current(), []);
  useEffect(() => {
    if (jump === null) return;
    pending.current = jump;
    onJumpStart(jump.seq);
  }, [jump, onJumpStart]);
  useEffect(() => {
    const target = pending.current;
    if (target === null) return;
    const index = rows.findIndex((e) => e.seq === target.seq);
    if (index === -1) {
      if (filtering && loaded.some((e) => e.seq === target.seq)) onHidden();
      return;
    }
    pending.current = null;
    cancel.current();
    // Written straight to the scroller and checked over the next frames: cards measured on the
    // way (their guessed heights were off) move the target. A few frames settle it.
    let frame = 0;
    let tries = 0;
    // The list itself may be off screen (the click was on a chart further down the page): bring
    // all of it into view, centred, so the page's sticky header covers none of it.
    const list = scrollRef.current?.getBoundingClientRect();
    if (list !== undefined && (list.top < 0 || list.bottom > window.innerHeight)) scrollRef.current?.scrollIntoView({ block: 'center' });
    const settle = () => {
      const el = scrollRef.current;
      if (el === null) return;
      const card = el.querySelector(`[data-seq="${target.seq}"]`);
      const box = el.getBoundingClientRect();
      const at = card?.getBoundingClientRect();
      const inView = at !== undefined && at.top >= box.top - 1 && at.top < box.bottom - 20;
      if (inView || tries++ > 30) return;
      const offset = virtualizer.getOffsetForIndex(index, 'center');
      if (offset !== undefined) el.scrollTop = offset[0];
      frame = requestAnimationFrame(settle);
    };
    settle();
    cancel.current = () => cancelAnimationFrame(frame);
  });
}
