// Globals that browsers and Node both have, as far as shared/ uses them. TypeScript declares them
// only in the DOM lib and Node's types, and shared/'s own config has neither (shared/tsconfig.json);
// the web and server configs, and the root one, get them from their side and leave this file out.
declare class URL {
  constructor(url: string, base?: string);
  readonly hostname: string;
}
