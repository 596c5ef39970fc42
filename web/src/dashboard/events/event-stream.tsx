/**
 * The event stream: presets, kind filters and search over the loaded events, in a virtualized
 * list of cards. It follows the newest events until the user scrolls up; scrolled near the top,
 * it loads older history by REST (the virtualizer keeps the card in view where it was).
 */
import { memo, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { EVENT_KINDS, type EventKind } from '../../../../shared/event-text.ts';
import type { EventWindow } from '../state/dashboard-state.ts';
import { EventCard, estimateCardHeight, type CardPanel } from './event-card.tsx';
import {
  DEFAULT_FILTER,
  isFiltering,
  KIND_LABELS,
  PRESET_LABELS,
  refilter,
  searchWords,
  type EventFilter,
  type Filtered,
  type Preset,
} from './event-filter.ts';
import { SearchWords } from './marked-text.tsx';
import { panelsWithMatches } from './search-marks.ts';
import { useJump, useLogScroll, type JumpRequest } from './log-scroll.ts';
import { useListVirtualizer } from './use-list-virtualizer.ts';
import { useDebounced } from '../state/timing.ts';
import type { PageLoad } from '../state/use-dashboard.ts';
import { formatInt } from '../../../../shared/format.ts';
import '../../components/segmented.css';

interface EventStreamProps {
  window: EventWindow;
  /** Events in the session's log (the stream's last seq). */
  total: number;
  caughtUp: boolean;
  loading: PageLoad | null;
  pageError: string | null;
  jump: JumpRequest | null;
  onLoadOlder: () => void;
  onLoadNewer: () => void;
  onNewest: () => void;
}

const PRESETS: Preset[] = ['everything', 'dialogue', 'problems'];
/** Load older history when the first rendered row is this close to the top. */
const NEAR_EDGE = 8;
/** How long a jumped-to card stays marked. */
const HIGHLIGHT_MS = 2_500;

/**
 * The list takes live events a step behind the rest of the page: the frame that folds them
 * updates the figures, the now line and the charts' models, and the list renders its new cards
 * (and follows them) in a render of its own just after, which React may interrupt. A list
 * rendered in that same frame made it the longest task of every live update.
 */
export const EventStream = memo(function EventStream(props: EventStreamProps) {
  const window = useDeferredValue(props.window);
  const total = useDeferredValue(props.total);
  return <EventList {...props} window={window} total={total} />;
});

const EventList = memo(function EventList(props: EventStreamProps) {
  const { window: w, loading, onLoadOlder, onLoadNewer } = props;
  const [preset, setPreset] = useState<Preset>(DEFAULT_FILTER.preset);
  const [hiddenKinds, setHiddenKinds] = useState<ReadonlySet<EventKind>>(DEFAULT_FILTER.hiddenKinds);
  const [searchInput, setSearchInput] = useState('');
  const search = useDebounced(searchInput, 150);
  const filter = useMemo<EventFilter>(() => ({ preset, hiddenKinds, search }), [preset, hiddenKinds, search]);

  const memo = useRef<Filtered | null>(null);
  const rows = useMemo(() => (memo.current = refilter(memo.current, w.events, filter)), [w.events, filter]).rows;

  const [follow, setFollow] = useState(true);
  const [open, setOpen] = useState<ReadonlyMap<number, ReadonlySet<CardPanel>>>(() => new Map());
  // A new object per jump, so a second jump to the same card marks it again.
  const [highlight, setHighlight] = useState<{ seq: number } | null>(null);
  const scrollRef = useRef<HTMLDivElement>(null);

  const virtualizer = useListVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => estimateCardHeight(rows[i]!, open.get(rows[i]!.seq)),
    getItemKey: (i) => rows[i]!.seq,
    overscan: 4,
  });

  const onToggle = useCallback((seq: number, panel: CardPanel) => {
    setOpen((prev) => {
      const next = new Map(prev);
      const panels = new Set(prev.get(seq));
      if (panels.has(panel)) panels.delete(panel);
      else panels.add(panel);
      if (panels.size === 0) next.delete(seq);
      else next.set(seq, panels);
      return next;
    });
  }, []);

  // A search opens the closed panels (reasoning, prompt) that hold its words, once per card and
  // search: a panel the user closes again stays closed.
  const words = useMemo(() => searchWords(search), [search]);
  const opened = useRef<{ words: readonly string[]; seen: Set<number> }>({ words, seen: new Set() });
  useEffect(() => {
    if (opened.current.words !== words) opened.current = { words, seen: new Set() };
    if (words.length === 0) return;
    const { seen } = opened.current;
    const found: [number, ('reasoning' | 'prompt')[]][] = [];
    for (const event of rows) {
      if (seen.has(event.seq)) continue;
      seen.add(event.seq);
      const panels = panelsWithMatches(event, words);
      if (panels.length > 0) found.push([event.seq, panels]);
    }
    if (found.length === 0) return;
    setOpen((prev) => {
      const next = new Map(prev);
      for (const [seq, panels] of found) next.set(seq, new Set([...(prev.get(seq) ?? []), ...panels]));
      return next;
    });
  }, [rows, words]);

  const scroll = useLogScroll({ scrollRef, virtualizer, rows, follow, setFollow, live: !w.hasLater });

  const lastSeq = w.events.at(-1)?.seq ?? 0;

  // History: near the top, load older pages; near the bottom of a window that stops short, newer ones.
  const items = virtualizer.getVirtualItems();
  const firstIndex = items[0]?.index;
  const lastIndex = items.at(-1)?.index;
  // A filter matching nothing in the last page would walk the whole log page by page: after a
  // page that added no row to show, the next one waits for the button.
  const olderRequest = useRef<{ rows: number; first: number } | null>(null);
  const loadOlder = () => {
    olderRequest.current = null;
    onLoadOlder();
  };
  useEffect(() => {
    if (loading !== null || follow || firstIndex === undefined) return;
    if (w.hasEarlier && firstIndex < NEAR_EDGE) {
      const first = w.events[0]?.seq ?? 0;
      const prev = olderRequest.current;
      if (prev !== null && (first === prev.first || rows.length === prev.rows)) return;
      olderRequest.current = { rows: rows.length, first };
      onLoadOlder();
    } else if (w.hasLater && lastIndex !== undefined && lastIndex > rows.length - NEAR_EDGE) onLoadNewer();
  }, [firstIndex, lastIndex, loading, follow, w.hasEarlier, w.hasLater, w.events, rows.length, onLoadOlder, onLoadNewer]);

  // A jump from the timeline: show that event, even if the filters hid it.
  const filtering = isFiltering(filter);
  const onJumpStart = useCallback((seq: number) => {
    setFollow(false);
    setHighlight({ seq });
  }, []);
  // The jumped-to card is marked long enough to find it, then looks like the others again.
  useEffect(() => {
    if (highlight === null) return;
    const timer = setTimeout(() => setHighlight(null), HIGHLIGHT_MS);
    return () => clearTimeout(timer);
  }, [highlight]);
  const onHidden = useCallback(() => {
    setPreset('everything');
    setHiddenKinds(new Set());
    setSearchInput('');
  }, []);
  useJump({ jump: props.jump, scrollRef, virtualizer, rows, loaded: w.events, filtering, onJumpStart, onHidden });

  const shown = rows.length;
  const loaded = w.events.length;
  return (
    <section className="panel ev-stream" aria-label="Event stream" data-testid="event-stream">
      <div className="ev-toolbar">
        <h2>Events</h2>
        {/* biome-ignore lint/a11y/useSemanticElements: a fieldset's border, padding and legend do not fit a row of toggle buttons; role=group names the row the same way */}
        <div className="segmented segmented-solid" role="group" aria-label="Preset">
          {PRESETS.map((p) => (
            <button key={p} type="button" aria-pressed={preset === p} onClick={() => setPreset(p)} data-testid={`preset-${p}`}>
              {PRESET_LABELS[p]}
            </button>
          ))}
        </div>
        <input
          type="search"
          className="input ev-search"
          placeholder="Search events"
          aria-label="Search events"
          value={searchInput}
          onChange={(e) => setSearchInput(e.target.value)}
          data-testid="event-search"
        />
        <button
          type="button"
          className={`button button-small ${follow ? '' : 'button-secondary'}`}
          aria-pressed={follow}
          onClick={() => {
            if (w.hasLater) props.onNewest();
            setFollow((f) => !f || w.hasLater);
          }}
          data-testid="follow-toggle"
        >
          {follow ? 'Following' : 'Follow'}
        </button>
      </div>
      {/* biome-ignore lint/a11y/useSemanticElements: a fieldset's border, padding and legend do not fit a row of chips; role=group names the row the same way */}
      <div className="ev-kinds" role="group" aria-label="Kinds">
        {EVENT_KINDS.map((kind) => (
          <label key={kind} className="chip">
            <input
              type="checkbox"
              checked={!hiddenKinds.has(kind)}
              onChange={() =>
                setHiddenKinds((prev) => {
                  const next = new Set(prev);
                  if (next.has(kind)) next.delete(kind);
                  else next.add(kind);
                  return next;
                })
              }
              data-testid={`kind-${kind}`}
            />
            {KIND_LABELS[kind]}
          </label>
        ))}
      </div>
      <p
        className="ev-count muted small"
        data-testid="event-stream-count"
        data-shown={shown}
        data-loaded={loaded}
        data-first-seq={w.events[0]?.seq ?? 0}
        data-last-seq={lastSeq}
      >
        {filtering ? `${formatInt(shown)} matching of ${formatInt(loaded)} loaded` : `${formatInt(loaded)} loaded`} · {formatInt(props.total)} in the log
        {filtering && w.hasEarlier && ' · filters look at loaded events only: scroll up or load older to look further'}
        {!props.caughtUp && ' · loading…'}
      </p>
      {props.pageError !== null && (
        <p className="field-error" role="alert" data-testid="event-page-error">
          Could not load events: {props.pageError}
        </p>
      )}
      {w.hasEarlier && (
        <div className="ev-edge">
          <button type="button" className="button button-plain button-small" onClick={loadOlder} disabled={loading !== null} data-testid="load-older">
            {loading === 'older' ? 'Loading older events…' : 'Load older events'}
          </button>
        </div>
      )}
      {/* biome-ignore lint/a11y/useSemanticElements: the virtualizer and the scroll hooks hold a div; role=region is what a labelled <section> would give */}
      <div
        ref={scrollRef}
        className="ev-scroll"
        role="region"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling list must be reachable by keyboard to scroll it (axe: scrollable-region-focusable)
        tabIndex={0}
        aria-label="Events, oldest at the top"
        {...scroll}
        data-testid="event-scroll"
        data-following={String(follow)}
      >
        <SearchWords.Provider value={words}>
          {shown === 0 ? (
            <p className="muted ev-empty" data-testid="event-stream-empty">
              {loaded === 0 ? (props.caughtUp ? 'No events yet.' : 'Loading events…') : 'No loaded event matches these filters.'}
            </p>
          ) : (
            <div className="ev-rows" style={{ height: virtualizer.getTotalSize() }}>
              {items.map((item) => {
                const event = rows[item.index]!;
                return (
                  <div
                    key={item.key}
                    ref={virtualizer.measureElement}
                    data-index={item.index}
                    className="ev-row"
                    style={{ transform: `translateY(${item.start}px)` }}
                  >
                    <EventCard event={event} open={open.get(event.seq)} highlighted={highlight?.seq === event.seq} onToggle={onToggle} />
                  </div>
                );
              })}
            </div>
          )}
        </SearchWords.Provider>
      </div>
      {w.hasLater && (
        <div className="ev-edge">
          <button type="button" className="button button-plain button-small" onClick={onLoadNewer} disabled={loading !== null} data-testid="load-newer">
            {loading === 'newer' ? 'Loading newer events…' : 'Load newer events'}
          </button>
          <button
            type="button"
            className="button button-plain button-small"
            onClick={() => {
              props.onNewest();
              setFollow(true);
            }}
            data-testid="go-newest"
          >
            Jump to the newest
          </button>
        </div>
      )}
    </section>
  );
});
