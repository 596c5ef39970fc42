/** Sandbox configurations for tests that run untrusted commands without a session store. */
import type { SandboxConfig } from '../proc/sandbox.ts';

/** Sandboxed where bubblewrap works here, hiding nothing of the test's. */
export const TEST_SANDBOX: SandboxConfig = { mode: 'auto', hide: [] };
/** The sandbox turned off (TILTH_SANDBOX=off). */
export const NO_SANDBOX: SandboxConfig = { mode: 'off', hide: [] };
