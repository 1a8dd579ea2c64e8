import { describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

describe('taorl CLI', () => {
  it('prints usage and exits 2 on an unknown command', async () => {
    const { io, out, err } = capture();
    expect(await runCli(['frobnicate'], io)).toBe(2);
    expect(out).toEqual([]);
    expect(err.join('')).toContain("unknown command 'frobnicate'");
    expect(err.join('')).toContain('Usage: taorl <command>');
  });

  it('prints usage on help and exits 0', async () => {
    const { io, out } = capture();
    expect(await runCli(['--help'], io)).toBe(0);
    expect(out.join('')).toMatch(/^Usage: taorl/);
  });

  it('prints the version from package.json', async () => {
    const { io, out } = capture();
    expect(await runCli(['--version'], io)).toBe(0);
    expect(out.join('')).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
