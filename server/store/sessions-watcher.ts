/**
 * Notices sessions that change on disk without going through this process — a session folder
 * copied in, removed by hand, or written by a headless `tilth run` — and tells the bus, so open
 * sessions lists refresh. It watches the root (folders coming and going) and each session folder
 * (checkpoint and prd changes, and event logs growing), never the worktrees below them.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EventBus } from './event-bus.ts';
import { isSessionId } from './session-id.ts';

const LIST_FILES = new Set(['checkpoint.json', 'prd.json']);

export class SessionsWatcher {
  private rootWatcher: fs.FSWatcher | undefined;
  private readonly folders = new Map<string, fs.FSWatcher>();

  constructor(
    private readonly root: string,
    private readonly bus: EventBus,
    /** Called when a session's event log changes on disk. */
    private readonly onLogChanged: (sessionId: string) => void = () => {},
  ) {}

  start(): void {
    this.rootWatcher = fs.watch(this.root, (_event, name) => {
      if (name && isSessionId(String(name))) {
        this.syncFolders();
        this.bus.sessionsChanged();
      }
    });
    this.rootWatcher.on('error', () => this.stop());
    this.syncFolders();
  }

  private syncFolders(): void {
    const present = new Set(fs.readdirSync(this.root).filter(isSessionId));
    for (const [id, watcher] of this.folders) {
      if (!present.has(id)) {
        watcher.close();
        this.folders.delete(id);
      }
    }
    for (const id of present) {
      if (this.folders.has(id)) continue;
      try {
        const watcher = fs.watch(path.join(this.root, id), (_event, name) => {
          if (!name) return;
          if (LIST_FILES.has(String(name))) this.bus.sessionsChanged();
          else if (String(name) === 'events.jsonl') this.onLogChanged(id);
        });
        watcher.on('error', () => {
          watcher.close();
          this.folders.delete(id);
        });
        this.folders.set(id, watcher);
      } catch {
        // The folder vanished between readdir and watch; the root watcher will tell us.
      }
    }
  }

  stop(): void {
    this.rootWatcher?.close();
    this.rootWatcher = undefined;
    for (const watcher of this.folders.values()) watcher.close();
    this.folders.clear();
  }
}
