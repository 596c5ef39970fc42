// @ts-check
/**
 * The grep tool's search, run in a worker thread (grep-search.ts owns it). The pattern comes from
 * a model, and a pattern like /(a+)+$/ can backtrack for minutes on one line; here that only
 * blocks this thread, which the server terminates at its deadline. Plain JavaScript so it loads
 * the same under `node bin/tilth.js` (tsx registered on the main thread only) and under vitest.
 *
 * Request: { pattern, files: [absolute path], maxFileBytes, sniffBytes, maxResults, maxLineChars }
 * (files already confined by the caller). Reply: { hits: [[file index, line number, text]],
 * more } — text cut to maxLineChars + 1 so the caller can mark a long line; the caller formats.
 */
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';

if (!parentPort) throw new Error('grep-worker.mjs runs as a worker thread');
const port = parentPort;

port.on('message', (request) => {
  port.postMessage(search(request));
});

/**
 * @param {{ pattern: string, files: string[], maxFileBytes: number, sniffBytes: number, maxResults: number, maxLineChars: number }} request
 */
function search({ pattern, files, maxFileBytes, sniffBytes, maxResults, maxLineChars }) {
  const regex = new RegExp(pattern);
  /** @type {[number, number, string][]} */
  const hits = [];
  let more = 0;
  const buf = Buffer.alloc(maxFileBytes + 1);
  for (let f = 0; f < files.length; f++) {
    const length = readSmall(/** @type {string} */ (files[f]), buf);
    if (length < 0 || buf.subarray(0, Math.min(length, sniffBytes)).includes(0)) continue;
    const lines = buf.toString('utf8', 0, length).split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = /** @type {string} */ (lines[i]);
      if (!regex.test(line)) continue;
      if (hits.length >= maxResults) more++;
      else hits.push([f, i + 1, line.slice(0, maxLineChars + 1)]);
    }
  }
  return { hits, more };
}

/**
 * Reads a regular file into `buf` and returns its length, or -1 to skip it: not a regular file,
 * larger than the buffer allows (one spare byte catches a file that grew after its stat), or
 * gone. Never reads more than the buffer, however large the file is; opened non-blocking so a
 * FIFO cannot hang the search.
 * @param {string} file
 * @param {Buffer} buf
 */
function readSmall(file, buf) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size >= buf.length) return -1;
    let length = 0;
    for (;;) {
      const n = fs.readSync(fd, buf, length, buf.length - length, length);
      if (n === 0) return length;
      length += n;
      if (length === buf.length) return -1;
    }
  } catch {
    return -1;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
