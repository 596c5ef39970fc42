/**
 * The colour theme: System (follows prefers-color-scheme), Light or Dark, chosen in the header and
 * kept in localStorage. The page reads it as `<html data-theme="light|dark">`; /theme-boot.js sets
 * that attribute before the first paint with the same key and rule, and this module keeps it right
 * afterwards (a new choice, or the system switching while System is chosen).
 */
import { useSyncExternalStore } from 'react';

export const THEME_CHOICES = ['system', 'light', 'dark'] as const;
export type ThemeChoice = (typeof THEME_CHOICES)[number];
export type Theme = 'light' | 'dark';

const KEY = 'tilth.theme';
const systemDark = window.matchMedia('(prefers-color-scheme: dark)');
const listeners = new Set<() => void>();

function readChoice(): ThemeChoice {
  try {
    const stored = window.localStorage.getItem(KEY);
    return THEME_CHOICES.find((c) => c === stored) ?? 'system';
  } catch {
    return 'system';
  }
}

let choice = readChoice();

function resolve(): Theme {
  return choice === 'dark' || (choice === 'system' && systemDark.matches) ? 'dark' : 'light';
}

function apply(): void {
  document.documentElement.dataset.theme = resolve();
  for (const listener of listeners) listener();
}

systemDark.addEventListener('change', () => {
  if (choice === 'system') apply();
});

export function setThemeChoice(next: ThemeChoice): void {
  choice = next;
  try {
    window.localStorage.setItem(KEY, next);
  } catch {
    // Not remembered, but still applied to this tab.
  }
  apply();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useThemeChoice(): ThemeChoice {
  return useSyncExternalStore(subscribe, () => choice);
}

/** The theme in effect: charts key on it to repaint with the new palette. */
export function useTheme(): Theme {
  return useSyncExternalStore(subscribe, resolve);
}

apply();
