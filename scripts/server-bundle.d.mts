/** Types of scripts/server-bundle.mjs, for the benches that call it. */
export function bundleServer(root: string, outdir: string): Promise<string[]>;
export function freshBundle(root: string): Promise<string>;
