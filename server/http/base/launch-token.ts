/**
 * The access token kept between launches (issue 16): `$TILTH_HOME/token`, readable by the user
 * alone, so a restart of `tilth serve` keeps every open tab and bookmark signed in. `tilth token
 * --rotate` replaces it (open tabs then ask for the new link after the next start); TILTH_TOKEN
 * still wins over the file.
 */
import { Tree } from '../../fs/tree.ts';
import { readHomeSecret, writeHomeSecret } from '../../config/home-secret.ts';
import { mintToken } from './security.ts';

export const TOKEN_FILE = 'token';
/** What `mintToken` makes; anything else in the file (a hand edit, a torn write) is replaced. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{32,512}$/;

/** The kept token, or a new one written there when there is none (or it is not a token). */
export function launchToken(home: string): { token: string; minted: boolean } {
  const kept = readHomeSecret(home, TOKEN_FILE);
  if (kept !== null && TOKEN_SHAPE.test(kept.text)) {
    // Someone widened it (a copy, an umask): the token opens the app, so it goes back to the user alone.
    if (kept.shared) Tree.at(home).chmod(TOKEN_FILE, 0o600);
    return { token: kept.text, minted: false };
  }
  return { token: rotateToken(home), minted: true };
}

/** Writes a new token (mode 0600, atomically) and returns it. */
export function rotateToken(home: string): string {
  const token = mintToken();
  writeHomeSecret(home, TOKEN_FILE, token, { replace: true });
  return token;
}
