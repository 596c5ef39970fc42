/**
 * A verb's refusal with its exit code: the CLI prints the message and exits with the code. Its own
 * module so that `tilth serve` need not load the headless verbs (issue 32) to recognise one.
 */
export class CliExit extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
