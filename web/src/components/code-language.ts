/** Python, JavaScript, TypeScript or Go by extension, for the highlighter; null means plain text. */
export function languageOf(path: string): 'python' | 'javascript' | 'typescript' | 'go' | null {
  if (/\.py$/i.test(path)) return 'python';
  if (/\.go$/i.test(path)) return 'go';
  if (/\.(?:m|c)?jsx?$/i.test(path)) return 'javascript';
  if (/\.(?:m|c)?tsx?$/i.test(path)) return 'typescript';
  return null;
}
