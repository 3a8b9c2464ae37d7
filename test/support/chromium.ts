// Headless Debian chromium through playwright-core (no browser download).
import { existsSync } from 'node:fs';
import { type Browser, type Page, chromium } from 'playwright-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean) as string[];

/** Path of a usable chromium, or null. */
export const CHROMIUM = CANDIDATES.find((path) => existsSync(path)) ?? null;

/** Why browser tests are skipped here ('' when they run). CI sets TP_REQUIRE_BROWSER=1. */
export const BROWSER_SKIP_REASON = CHROMIUM ? '' : 'no chromium found (apt-get install chromium, or set CHROMIUM_PATH)';
if (!CHROMIUM && process.env.TP_REQUIRE_BROWSER === '1') {
  throw new Error(`TP_REQUIRE_BROWSER=1 but ${BROWSER_SKIP_REASON}`);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM!,
    headless: true,
    // This machine has no network beyond loopback: keep chromium from trying.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

/**
 * Distinct colours among every `stride`-th pixel of the canvas inside `#chartId`: a blank or
 * axes-only chart has few, a drawn one many. The report tests' check that a chart really drew.
 */
export function canvasColours(page: Page, chartId: string, stride: number): Promise<number> {
  return page.evaluate(({ id, step }) => {
    const canvas = document.querySelector(`#${id} canvas`) as HTMLCanvasElement;
    const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    const seen = new Set<number>();
    for (let i = 0; i < pixels.length; i += 4 * step) seen.add((pixels[i] << 16) | (pixels[i + 1] << 8) | pixels[i + 2]);
    return seen.size;
  }, { id: chartId, step: stride });
}
