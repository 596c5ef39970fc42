/** A real `ws` client for `/api/stream` integration tests: records parsed frames, waits for one. */
import { WebSocket } from 'ws';
import type { TilthEvent } from '../../shared/events.ts';
import { ServerFrameSchema, type ServerFrame } from '../../shared/stream-protocol.ts';
import { TEST_TOKEN } from './test-app.ts';

/** The `ws` internals a test needs to stop reading (so the server's send buffer fills). */
interface SocketInternals {
  _socket: { pause(): void; resume(): void };
}

export class StreamTestClient {
  readonly frames: ServerFrame[] = [];
  private waiters: { test: (f: ServerFrame) => boolean; resolve: (f: ServerFrame) => void }[] = [];
  /** Resolves when the connection closes, with the close code (1006: cut off without a close frame). */
  readonly closed: Promise<number>;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const frame = ServerFrameSchema.parse(JSON.parse(String(data)));
      this.frames.push(frame);
      const [met, waiting] = [this.waiters.filter((w) => w.test(frame)), this.waiters.filter((w) => !w.test(frame))];
      this.waiters = waiting;
      for (const w of met) w.resolve(frame);
    });
    this.closed = new Promise((resolve) => ws.once('close', (code) => resolve(code)));
  }

  static async open(port: number, headers: Record<string, string> = { authorization: `Bearer ${TEST_TOKEN}` }): Promise<StreamTestClient> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/stream`, { headers });
    const client = new StreamTestClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return client;
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  next(test: (f: ServerFrame) => boolean, timeoutMs = 5000): Promise<ServerFrame> {
    const found = this.frames.find(test);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for a frame')), timeoutMs);
      this.waiters.push({
        test,
        resolve: (f) => {
          clearTimeout(timer);
          resolve(f);
        },
      });
    });
  }

  events(sessionId: string): TilthEvent[] {
    return this.frames.flatMap((f) => (f.type === 'event' && f.sessionId === sessionId ? [f.event] : []));
  }

  /** Stops reading from the TCP socket: the kernel buffers fill, then the server's. */
  pauseReading(): void {
    (this.ws as unknown as SocketInternals)._socket.pause();
  }

  resumeReading(): void {
    (this.ws as unknown as SocketInternals)._socket.resume();
  }

  close(): void {
    this.ws.close();
  }
}
