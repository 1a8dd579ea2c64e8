import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ByteTokenizer } from '@taorl/data';
import { RemotePolicy } from '@taorl/rollout/node';
import { describe, expect, it } from 'vitest';
import type { BenchmarkSampleRecord } from '../../src/bench-eval/results-file.js';
import { runCli } from '../../src/index.js';
import { capture } from '../support/capture-io.js';
import { serveTinyPolicyForFile, startServeProcess } from './serve-process.js';

const tokenizer = new ByteTokenizer();
// Peaked distributions (weights far from their small initialisation), so greedy answers have no near-ties and
// the served model's answers can be compared token for token with the local model's.
const { root, modelDir, servers } = serveTinyPolicyForFile({
  tempPrefix: 'taorl-endpoint-',
  servers: 2,
  seed: 5,
  sharpenSeed: 500,
});

const records = (dir: string): BenchmarkSampleRecord[] =>
  readFileSync(join(dir, 'eval', 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as BenchmarkSampleRecord);

describe('taorl eval --endpoint against taorl serve processes', () => {
  it('answers benchmark problems through two servers exactly as the local weights do (greedy)', async () => {
    const common = [
      '--bench',
      'math500',
      '--limit',
      '3',
      '--k',
      '2',
      '--set',
      `model.path=${JSON.stringify(modelDir)}`,
      '--greedy',
      '--set',
      'rollout.maxResponseTokens=40',
      '--set',
      'tool.sandbox={name: local, workers: 1, preload: []}',
    ];
    const localDir = join(root, 'local');
    const remoteDir = join(root, 'remote');
    const local = capture();
    expect(await runCli(['eval', ...common, '--out', localDir], local.io), local.err.join('')).toBe(0);
    const remote = capture();
    const endpoint = servers.map((server) => server.url).join(',');
    expect(
      await runCli(['eval', ...common, '--endpoint', endpoint, '--out', remoteDir], remote.io),
      remote.err.join(''),
    ).toBe(0);
    expect(remote.out.join('')).toMatch(/math500/);

    const key = (r: BenchmarkSampleRecord) => `${r.problemId}#${r.sample}`;
    const byKey = new Map(records(localDir).map((r) => [key(r), r]));
    const served = records(remoteDir);
    expect(served).toHaveLength(6);
    expect(served.filter((r) => r.response.length > 0).length).toBeGreaterThan(0);
    for (const record of served) expect(record.response).toBe(byKey.get(key(record))!.response);
    const header = JSON.parse(readFileSync(join(remoteDir, 'eval', 'results.jsonl'), 'utf8').split('\n')[0]!);
    expect(JSON.stringify(header)).toContain(servers[0]!.url);
  }, 300_000);

  it('rejects a malformed --endpoint and endpoint-only flags without one', async () => {
    const bad = capture();
    expect(await runCli(['eval', '--endpoint', 'not a url'], bad.io)).toBe(2);
    expect(bad.err.join('')).toMatch(/--endpoint: 'not a url' is not a URL/);
    const stray = capture();
    expect(await runCli(['eval', '--api', 'sglang'], stray.io)).toBe(2);
    expect(stray.err.join('')).toMatch(/--api need\(s\) --endpoint/);
  });

  it('survives a server killed mid-run: the other answers, no sample is lost or duplicated', async () => {
    const victim = await startServeProcess(['--model', modelDir]);
    const remote = new RemotePolicy({
      endpoints: [servers[0]!.url, victim.url],
      api: 'sglang',
      vocabSize: tokenizer.vocabSize,
      maxSequenceLength: 512,
      maxConcurrentPerServer: 4,
      retryDelayMs: 20,
    });
    const prompts = Array.from({ length: 32 }, (_, i) => tokenizer.encode(`Q: ${i}*7=?\n`));
    let settled = false;
    const pending = remote.generate(prompts, { maxNewTokens: 48, temperature: 1, seed: 3 }).finally(() => {
      settled = true;
    });
    const victimStats = () => remote.stats().find((s) => s.url.startsWith(victim.url))!;
    while (victimStats().requests < 2 && !settled) await new Promise((r) => setTimeout(r, 5));
    expect(settled).toBe(false);
    victim.child.kill('SIGKILL');
    await victim.exited;
    const answers = await pending;
    expect(answers).toHaveLength(32);
    for (const answer of answers) {
      expect(answer.tokens.length).toBeGreaterThan(0);
      expect(answer.logProbs).toHaveLength(answer.tokens.length);
    }
    expect(victimStats().failures).toBeGreaterThan(0);
    const survivor = remote.stats().find((s) => s.url.startsWith(servers[0]!.url))!;
    expect(survivor.requests + victimStats().requests).toBeGreaterThanOrEqual(32);
    await remote.close();
  }, 120_000);
});
