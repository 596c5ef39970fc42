/** Python, JavaScript, TypeScript, Go or Rust by extension, for the highlighter; null means plain text. */
export function languageOf(path: string): 'python' | 'javascript' | 'typescript' | 'go' | 'rust' | null {
  if (/\.py$/i.test(path)) return 'python';
  if (/\.go$/i.test(path)) return 'go';
  if (/\.rs$/i.test(path)) return 'rust';
  if (/\.(?:m|c)?jsx?$/i.test(path)) return 'javascript';
  if (/\.(?:m|c)?tsx?$/i.test(path)) return 'typescript';
  return null;
}
