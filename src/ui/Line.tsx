import React, { cloneElement, createElement, Fragment, isValidElement, type ReactElement, type ReactNode } from 'react';
import { Text, type TextProps } from 'ink';
import { cellWidth, clipEnd } from './text.js';

/** The strings and numbers of a row's tree, in order; throws on anything but text, `<Text>` and fragments. */
function measure(node: ReactNode): number {
  if (node === null || node === undefined || typeof node === 'boolean') return 0;
  if (typeof node === 'string' || typeof node === 'number') return cellWidth(String(node));
  if (Array.isArray(node)) return node.reduce<number>((sum, child: ReactNode) => sum + measure(child), 0);
  if (isValidElement(node) && (node.type === Text || node.type === Fragment)) return measure((node.props as { children?: ReactNode }).children);
  throw new Error('Line: a row holds only strings, numbers, <Text> and fragments (a component inside cannot be measured)');
}

/** `node` with its text cut to `budget.left` cells; the string where the cut falls ends in `…`, everything after it is dropped. */
function cut(node: ReactNode, budget: { left: number; done: boolean }): ReactNode {
  if (node === null || node === undefined || typeof node === 'boolean') return node;
  if (typeof node === 'string' || typeof node === 'number') {
    if (budget.done) return null;
    const text = String(node);
    const width = cellWidth(text);
    if (width <= budget.left) {
      budget.left -= width;
      return node;
    }
    budget.done = true;
    return `${clipEnd(text, budget.left)}…`;
  }
  if (Array.isArray(node)) return node.map((child: ReactNode) => cut(child, budget));
  const element = node as ReactElement<{ children?: ReactNode }>;
  if (budget.done) return null;
  return cloneElement(element, undefined, ...spread(cut(element.props.children, budget)));
}

/** Children as arguments (as JSX passes them), so a cut row's children need no keys. */
const spread = (node: ReactNode): ReactNode[] => (Array.isArray(node) ? node : [node]);

/**
 * One row of text, measured and cut by the console rather than by Ink: the row's strings
 * (nested `<Text>` keep their colours) are measured with {@link cellWidth}, one grapheme
 * cluster at a time, and a row wider than `width` cells is cut at `width - 1` with `…`, so
 * it is never wider than the cells it has (Ink's own `truncate-end` lets a wide character at
 * the cut overflow by one). Children: strings, numbers, `<Text>` and fragments only.
 */
export function Line({ width, children, ...props }: { width: number; children?: ReactNode } & Omit<TextProps, 'wrap' | 'children'>) {
  const room = Math.max(0, Math.floor(width));
  const fitted = measure(children) <= room ? children : room === 0 ? null : cut(children, { left: room - 1, done: false });
  return createElement(Text, props, ...spread(fitted));
}
