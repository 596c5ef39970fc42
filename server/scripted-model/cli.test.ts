import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));

// Plain node with the tsx loader, not the tsx wrapper, so signals reach the CLI itself.
function runCli(args: string[]) {
  return execa(process.execPath, ['--import', 'tsx', CLI, ...args], { reject: false, timeout: 15_000 });
}

describe('fake-model CLI', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tilth-fake-cli-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the base URL, serves the script, and exits 0 on SIGTERM reporting what was left', async () => {
    const script = path.join(dir, 'script.json');
    await writeFile(script, JSON.stringify({ models: { 'cli-model': [{ content: 'from the cli' }, { content: 'left over' }] } }));
    const child = runCli(['--port', '0', '--script', script]);

    const baseURL = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split('\n')[0];
        if (out.includes('\n') && line) resolve(line.trim());
      });
      void child.then((r) => reject(new Error(`CLI exited early: ${r.stderr}`)));
    });
    expect(baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    const res = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'cli-model', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const json = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(json.choices[0]?.message.content).toBe('from the cli');

    child.kill('SIGTERM');
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('1 scripted reply was never requested for model "cli-model"');
  });

  it('exits 2 with the reason when the script is invalid', async () => {
    const script = path.join(dir, 'bad.json');
    await writeFile(script, JSON.stringify({ models: { m: [{ fault: 'explode' }] } }));
    const result = await runCli(['--port', '0', '--script', script]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`${script} is not a valid fake-model script: models.m.0.fault`);
  });

  it('exits 2 on an unknown flag or a bad port', async () => {
    const [unknown, badPort] = await Promise.all([runCli(['--prot', '1']), runCli(['--port', 'abc'])]);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('usage: fake-model');
    expect(badPort.exitCode).toBe(2);
    expect(badPort.stderr).toContain('--port must be a whole number');
  });
});
