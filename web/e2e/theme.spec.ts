import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { E2E_TOKEN } from '../../playwright.config.ts';
import { writeRunSession } from '../../bench/session-gen.ts';
import { SessionStore } from '../../server/store/session-store.ts';
import { startTilth } from '../../server/testing/tilth-process.ts';

/**
 * Dark mode: System follows the operating system's setting; the header's choice overrides it,
 * is remembered across reloads, and is in force before the app's own script has run. The charts,
 * drawn on a canvas CSS cannot reach, repaint in the new palette.
 */
const SHOTS = process.env.THEME_SHOTS_DIR;

const html = (page: Page) => page.locator('html');
const colorScheme = (page: Page) => page.evaluate(() => getComputedStyle(document.documentElement).colorScheme);
/** The page background's relative brightness, 0 (black) to 255 (white). */
const backgroundLevel = (page: Page) =>
  page.evaluate(() => {
    const probe = document.createElement('div');
    probe.style.color = getComputedStyle(document.documentElement).backgroundColor;
    document.body.append(probe);
    const [r, g, b] = getComputedStyle(probe).color.match(/\d+/g)!.map(Number);
    probe.remove();
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  });

test('the theme follows the system until the header picks one, and the pick survives a reload', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto(`/#token=${E2E_TOKEN}`);
  await expect(page.getByTestId('sessions-page')).toBeVisible();
  const picker = page.getByTestId('theme-picker');
  await expect(picker).toHaveValue('system');
  await expect(picker).toHaveAccessibleName('Colour theme');
  await expect(html(page)).toHaveAttribute('data-theme', 'dark');
  expect(await colorScheme(page)).toBe('dark');
  expect(await backgroundLevel(page)).toBeLessThan(60);

  // System follows a change of the system's setting while the page is open.
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(html(page)).toHaveAttribute('data-theme', 'light');
  expect(await colorScheme(page)).toBe('light');
  expect(await backgroundLevel(page)).toBeGreaterThan(200);

  // Dark, picked while the system is light, holds across a reload.
  await picker.selectOption('dark');
  await expect(html(page)).toHaveAttribute('data-theme', 'dark');
  expect(await colorScheme(page)).toBe('dark');
  await page.reload();
  await expect(page.getByTestId('sessions-page')).toBeVisible();
  await expect(picker).toHaveValue('dark');
  await expect(html(page)).toHaveAttribute('data-theme', 'dark');
  expect(await backgroundLevel(page)).toBeLessThan(60);
  if (SHOTS !== undefined) await page.screenshot({ path: `${SHOTS}/theme-picked-dark-1280.png` });

  // Light, picked while the system is dark, holds too, and a change of the system no longer moves it.
  await page.emulateMedia({ colorScheme: 'dark' });
  await picker.selectOption('light');
  await expect(html(page)).toHaveAttribute('data-theme', 'light');
  await page.reload();
  await expect(picker).toHaveValue('light');
  await expect(html(page)).toHaveAttribute('data-theme', 'light');
  expect(await colorScheme(page)).toBe('light');
  expect(await backgroundLevel(page)).toBeGreaterThan(200);

  // Back to System: the system's dark again.
  await picker.selectOption('system');
  await expect(html(page)).toHaveAttribute('data-theme', 'dark');
  await page.reload();
  await expect(picker).toHaveValue('system');
  await expect(html(page)).toHaveAttribute('data-theme', 'dark');
});

test('a remembered dark theme is in force before the app has rendered anything', async ({ page }) => {
  await page.goto(`/#token=${E2E_TOKEN}`);
  await page.getByTestId('theme-picker').selectOption('dark');
  // Hold back the app's script: what shows meanwhile is the page as first painted.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/assets/index-*.js', async (route) => {
    await held;
    await route.continue();
  });
  await page.goto('/', { waitUntil: 'commit' });
  await expect(html(page)).toHaveAttribute('data-theme', 'dark');
  expect(await page.locator('#root').innerHTML()).toBe('');
  expect(await backgroundLevel(page)).toBeLessThan(60);
  release();
  await expect(page.getByTestId('sessions-page')).toBeVisible();
  await expect(html(page)).toHaveAttribute('data-theme', 'dark');
});

test('Skip to content is the first stop of Tab and moves the focus to the page', async ({ page }) => {
  await page.goto(`/#token=${E2E_TOKEN}`);
  await expect(page.getByTestId('sessions-page')).toBeVisible();
  await page.keyboard.press('Tab');
  const skip = page.getByTestId('skip-link');
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  if (SHOTS !== undefined) await page.screenshot({ path: `${SHOTS}/skip-link-1280.png` });
  await page.keyboard.press('Enter');
  await expect(page.locator('main')).toBeFocused();
  await page.keyboard.press('Tab');
  // The next stop is inside the page, past the header's links.
  expect(await page.evaluate(() => document.activeElement?.closest('main') !== null)).toBe(true);
});

test('the charts repaint in the palette of the theme in force', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const tilth = await startTilth();
  try {
    const store = new SessionStore(tilth.sessionsDir);
    const session = writeRunSession(store, 300, { tasks: 3, seed: 7 });
    store.close();
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(tilth.url);
    await page.goto(`${tilth.origin}/sessions/${session.id}`);
    const dashboard = page.locator('[data-testid="dashboard"][data-ready="true"][data-settled="true"]');
    await expect(dashboard).toBeVisible();
    const canvases = page.locator('[data-testid="timeline"] canvas, [data-testid="pressure-chart"] canvas');
    await expect(canvases).toHaveCount(2);
    const pixels = () => canvases.evaluateAll((list) => list.map((c) => (c as HTMLCanvasElement).toDataURL()));
    /** Each chart's count of pixels painted in the theme's grid colour (--border-soft), read from the page. */
    const gridPixels = () =>
      canvases.evaluateAll((list) => {
        const probe = document.createElement('div');
        probe.style.color = 'var(--border-soft)';
        document.body.append(probe);
        const [r, g, b] = getComputedStyle(probe).color.match(/\d+/g)!.map(Number);
        probe.remove();
        return list.map((c) => {
          const canvas = c as HTMLCanvasElement;
          const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
          let n = 0;
          for (let i = 0; i < data.length; i += 4) {
            if (data[i + 3]! > 240 && Math.abs(data[i]! - r!) + Math.abs(data[i + 1]! - g!) + Math.abs(data[i + 2]! - b!) < 12) n++;
          }
          return n;
        });
      });

    await expect.poll(async () => (await pixels()).length).toBe(2);
    const inLight = await pixels();
    for (const n of await gridPixels()) expect(n).toBeGreaterThan(100);
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(html(page)).toHaveAttribute('data-theme', 'dark');
    await expect.poll(async () => (await pixels())[0] !== inLight[0] && (await pixels())[1] !== inLight[1]).toBe(true);
    // The grid is drawn in the dark palette's colour now (the light one would not match it).
    for (const n of await gridPixels()) expect(n).toBeGreaterThan(100);
    // And back: the light palette's drawing, pixel for pixel.
    await page.emulateMedia({ colorScheme: 'light' });
    await expect.poll(async () => (await pixels()).join() === inLight.join()).toBe(true);
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(html(page)).toHaveAttribute('data-theme', 'dark');
    if (SHOTS !== undefined) {
      fs.mkdirSync(SHOTS, { recursive: true });
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await page.waitForTimeout(200);
        await page.screenshot({ path: `${SHOTS}/theme-charts-dark-${width}.png`, fullPage: true });
      }
    }
  } finally {
    await tilth.stop();
  }
});
