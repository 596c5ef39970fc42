/** Placeholder until the context-budget module lands: a character-based token estimate. */
export function estimateTokens(messages: readonly unknown[], tools?: readonly unknown[]): number {
  let chars = JSON.stringify(messages).length;
  if (tools) chars += JSON.stringify(tools).length;
  return Math.ceil(chars / 3.5);
}
