/**
 * The key that signs every message between `tilth serve` and its queue workers (queue-signing.ts):
 * `$TILTH_HOME/queue.key`, 32 random bytes in hex, readable by the user alone. The first process
 * that needs it makes it; one that finds it readable by others refuses to start rather than
 * narrow it like the access token (launch-token.ts), since whoever read it meanwhile can sign runs
 * and the user must decide whether to make a new one. Workers on the same machine share
 * TILTH_HOME with the server, and so the key.
 */
import { randomBytes } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import { readHomeSecret, writeHomeSecret } from '../config/home-secret.ts';

export const QUEUE_KEY_FILE = 'queue.key';
const KEY_SHAPE = /^[0-9a-f]{64}$/;

export class QueueKeyError extends AppError {
  constructor(message: string) {
    super('queue_key_unusable', message);
  }

  override get expose(): boolean {
    return true;
  }
}

/** The key, and the file it is kept in (to name in what the logs say). */
export interface QueueKey {
  key: Buffer;
  file: string;
}

/** The queue key kept in `home`, made there on first use. Throws QueueKeyError when it cannot be trusted. */
export function queueKey(home: string): QueueKey {
  let kept = readHomeSecret(home, QUEUE_KEY_FILE);
  // Another process starting at the same moment may make it first: then its key is the one.
  if (kept === null) {
    writeHomeSecret(home, QUEUE_KEY_FILE, randomBytes(32).toString('hex'), { replace: false });
    kept = readHomeSecret(home, QUEUE_KEY_FILE);
  }
  if (kept === null) throw new QueueKeyError(`Could not keep the queue key in ${home}.`);
  if (kept.shared) {
    throw new QueueKeyError(
      `${kept.file} can be read by other users (mode ${kept.mode.toString(8).padStart(3, '0')}), and with it anyone who reaches the queue's Redis can start, stop and steer runs. ` +
        `Run \`chmod 600 ${kept.file}\`, or delete it if others may have read it (a new one is made; restart every tilth worker too), then start again.`,
    );
  }
  if (!KEY_SHAPE.test(kept.text)) {
    throw new QueueKeyError(
      `${kept.file} is not a queue key (64 hex digits). Delete it (a new one is made; restart every tilth worker too), then start again.`,
    );
  }
  return { key: Buffer.from(kept.text, 'hex'), file: kept.file };
}
