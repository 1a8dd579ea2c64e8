import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, chromiumForTest, NO_CHROMIUM } from '../../../test/support/chromium';
import { serveTestSite, type TestSite } from './test-site';

// The playground as a static host serves it: `vite build` into a folder, `vite preview` serving that folder, and
// headless Chromium clicking through the page: Python runs in the page's web worker, @taorl/eval grades the answer.

const executablePath = chromiumForTest('the playground test');

describe.skipIf(executablePath === null)(
  executablePath === null ? `the playground (skipped: ${NO_CHROMIUM})` : 'the playground, built and served',
  () => {
    let served: TestSite;
    let browser: Browser;
    let page: Page;
    const problems: string[] = [];

    beforeAll(async () => {
      // The page also loads the model's asset: without it, its requests would fail (and this test with them).
      served = await serveTestSite('code');
      const { origin } = served;
      browser = await chromium.launch({ executablePath: executablePath as string, args: CHROMIUM_ARGS });
      page = await browser.newPage();
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('response', (response) => {
        if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
      });
      page.on('request', (request) => {
        if (!request.url().startsWith(origin) && !request.url().startsWith('blob:')) {
          problems.push(`requested ${request.url()}`);
        }
      });
      await page.goto(origin);
      await page.locator('#state', { hasText: 'ready' }).waitFor({ timeout: 300_000 });
    }, 600_000);
    afterAll(async () => {
      await browser?.close();
      await served?.close();
    });

    /** Puts `code` in the editor, runs it and returns the verdict the page shows. */
    async function runAndGrade(code: string): Promise<string> {
      await page.fill('#code', code);
      await page.evaluate(() => {
        (document.getElementById('verdict') as HTMLElement).textContent = '';
      });
      await page.click('#run');
      const verdict = page.locator('#verdict');
      await verdict.filter({ hasText: /./ }).waitFor({ timeout: 300_000 });
      return (await verdict.textContent()) ?? '';
    }

    it('runs the example in its worker and grades it correct', async () => {
      expect(await runAndGrade(await page.inputValue('#code'))).toBe('correct: the answer read is "385"');
      expect(await page.textContent('#output')).toBe('\\boxed{385}\n');
    }, 300_000);

    it('grades a wrong answer incorrect, and a runaway loop as its timeout status', async () => {
      expect(await runAndGrade('print(sum(range(1, 11)))')).toBe('incorrect: the answer read is "55"');
      expect(await runAndGrade('while True:\n    pass')).toBe('incorrect: the run ended with status timeout');
      expect(problems).toEqual([]);
    }, 300_000);
  },
);
