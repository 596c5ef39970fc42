/** Python or JavaScript by extension, for the highlighter; null means plain text. */
export function languageOf(path: string): 'python' | 'javascript' | 'typescript' | null {
  if (/\.py$/i.test(path)) return 'python';
  if (/\.(?:m|c)?jsx?$/i.test(path)) return 'javascript';
  if (/\.(?:m|c)?tsx?$/i.test(path)) return 'typescript';
  return null;
}
