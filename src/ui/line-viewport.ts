// What a one-line text field (the command bar, the deny note) shows of a text wider than
// itself: a window of the text's clusters, with `…` where text is left out on either
// side. The caret is always on a cluster drawn in the window (or on the blank cell just
// after the last one, at the end of the text), never under a `…`; the window holds still
// while the caret moves inside it and scrolls only as far as the caret goes past an edge
// (readline's horizontal scrolling, one cluster at a time); and it leaves no cells empty on
// the right (but the one kept for the caret) while text is hidden on the left: after a
// delete at the end, or in a wider terminal, it fills up again.

/** The part of a line a field shows. Clusters are counted by index into the line's clusters. */
export interface LineWindow {
  /** The first cluster shown. */
  first: number;
  /** One past the last cluster shown. */
  end: number;
  /** A `…` (one cell) stands before the first cluster shown: text is left out there. */
  before: boolean;
  /** A `…` (one cell) stands after the last cluster shown. */
  after: boolean;
  /** The caret's column, in cells from the window's left edge (the `…` before included). */
  caret: number;
}

/**
 * The window of a line of `count` clusters, the caret before cluster `cursor` (0..count;
 * `count`: after the last, on a blank cell), in a field `room` cells wide, as it follows the
 * window shown before, which began at cluster `anchor` (0 for a field just opened).
 * `width(i)` is the cells cluster `i` takes (1 or 2; 0 for a mark of no width); it is asked
 * only for the clusters near the window, so the cost follows the field's width, not the
 * text's length. The rightmost cell is kept for the caret's blank cell at the end of the
 * text, a `…`, or nothing: a text exactly as wide as the field shows a `…` there, and the
 * window stays where it is as the caret steps on and off the end. A field too narrow for
 * the caret's cluster with a `…` on each side shows that cluster alone.
 * The result is a fixed point: given its own `first` as `anchor`, it is itself again, so
 * two parts of a frame that ask for the same line get the same window.
 */
export function lineWindow(width: (i: number) => number, count: number, cursor: number, room: number, anchor: number): LineWindow {
  /**
   * Whether clusters `from`..count fit, after a `…` when `from` > 0, with the cell kept at
   * the right (the caret's blank cell at the end of the text; wherever the caret is, so
   * the window does not move when the caret steps off the end).
   */
  const fitsFrom = (from: number): boolean => {
    let used = 1 + (from > 0 ? 1 : 0);
    for (let i = count - 1; i >= from; i--) {
      used += width(i);
      if (used > room) return false;
    }
    return used <= room;
  };
  /** The end of a window starting at `first`: all the rest if it fits, else as many as fit before a `…`. */
  const endFrom = (first: number): number => {
    if (fitsFrom(first)) return count;
    let used = (first > 0 ? 1 : 0) + 1;
    let end = first;
    while (end < count && used + width(end) <= room) used += width(end++);
    return end;
  };
  const window = (first: number, end: number): LineWindow => {
    let caret = first > 0 ? 1 : 0;
    for (let i = first; i < cursor; i++) caret += width(i);
    return { first, end, before: first > 0, after: end < count, caret };
  };

  if (fitsFrom(0)) return window(0, count);
  // The caret's cluster (none at the end) and the cell kept at the right: the caret's
  // blank cell at the end, else a `…` or the last cell of the text.
  const tail = (cursor >= count ? 0 : width(cursor)) + 1;
  if (tail + (cursor > 0 ? 1 : 0) > room) return { first: cursor, end: Math.min(count, cursor + 1), before: false, after: false, caret: 0 };

  // Where the window was, unless the caret went past its left edge.
  let first = Math.max(0, Math.min(anchor, cursor));
  let end = endFrom(first);
  if (cursor >= end && !(cursor >= count && end === count)) {
    // The caret went past the right edge: the window ends at it.
    let used = tail;
    first = cursor;
    while (first > 0 && used + width(first - 1) + (first - 1 > 0 ? 1 : 0) <= room) used += width(--first);
    end = endFrom(first);
  }
  if (end === count) {
    // Nothing hidden on the right: take back the clusters on the left that fit.
    let used = 1 + (first > 0 ? 1 : 0);
    for (let i = first; i < count; i++) used += width(i);
    while (first > 0) {
      // Showing cluster first - 1 as well; the `…` goes when that is cluster 0.
      const next = used + width(first - 1) - (first - 1 === 0 ? 1 : 0);
      if (next > room) break;
      used = next;
      first--;
    }
  }
  // A `…` in place of one narrow cluster hides nothing: the cluster shows instead (Home in
  // the command bar: the `/` before the caret, not a `…`).
  if (first === 1 && width(0) <= 1) first = 0;
  return window(first, end);
}

/**
 * A field's window kept from one frame to the next, so it holds still while the caret
 * moves inside it ({@link lineWindow}). One for the console's one focused field (the
 * command bar or the deny note: never both open at once). Asking again for the same line,
 * width and text gives the same window, whichever part of the frame asks first.
 */
export class LineViewport {
  private first = 0;

  /** The window of a line (see {@link lineWindow}), remembered for the next frame. */
  window(width: (i: number) => number, count: number, cursor: number, room: number): LineWindow {
    const shown = lineWindow(width, count, cursor, room, this.first);
    this.first = shown.first;
    return shown;
  }
}
