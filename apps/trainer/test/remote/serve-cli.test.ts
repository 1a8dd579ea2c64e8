import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/index.js';
import type { CompletionResponse } from '../../src/serve/completions.js';
import { capture } from '../support/capture-io.js';
import { get, post } from './serve-fixture.js';
import { startServeProcess } from './serve-process.js';

const cli = new URL('../../src/cli.ts', import.meta.url).pathname;

describe('taorl serve (CLI)', () => {
  it('serves from a child process, prints the listening line with the real port, and exits 0 on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        '--conditions=@taorl/source',
        '--import',
        'tsx',
        cli,
        'serve',
        '--port',
        '0',
        '--seed',
        '3',
        '--max-batch',
        '8',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const line = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /taorl serve: listening on .*\n/.exec(stdout);
        if (match) resolve(match[0]);
      });
      void exited.then((code) => reject(new Error(`taorl serve exited early with ${code}: ${stderr}`)));
    });
    expect(line).toMatch(
      /^taorl serve: listening on http:\/\/127\.0\.0\.1:(\d+) \(model taorl-tiny, vocab 259, max length 512; weight reloads off; no API key\)\n$/,
    );
    const url = /(http:\/\/\S+)/.exec(line)![1]!;
    expect(url).not.toMatch(/:0$/);

    const models = await get<{ data: { id: string }[] }>(url, '/v1/models');
    expect(models.body.data[0]!.id).toBe('taorl-tiny');
    const reply = await post<CompletionResponse>(url, '/v1/completions', {
      model: 'taorl-tiny',
      prompt: [72, 105],
      max_tokens: 3,
      temperature: 0,
      ignore_eos: true,
      return_token_ids: true,
    });
    expect(reply.status).toBe(200);
    expect(reply.body.choices[0]!.token_ids).toHaveLength(3);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdout).toContain('taorl serve: stopped on SIGTERM');
    expect(stderr).toBe('');
  });

  it('on SIGTERM answers every request sent before it, those the busy model had not read yet included', async () => {
    const server = await startServeProcess(['--seed', '3', '--max-batch', '1']);
    const completion = (maxTokens: number) =>
      fetch(`${server.url}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: [72, 105], max_tokens: maxTokens, ignore_eos: true, temperature: 0 }),
      }).then(
        (response) => response.status,
        (error: Error) => `failed: ${error.message}`,
      );
    // A long model call holds the server's event loop; the others and the signal arrive meanwhile (as they do
    // under load), so the server reads them only after the call.
    const first = completion(400);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const others = Array.from({ length: 5 }, () => completion(8));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stopping = new Promise<void>((resolve) =>
      server.child.stdout!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('answering the requests received, then stopping')) resolve();
      }),
    );
    server.child.kill('SIGTERM');
    // A second signal while it drains does not cut the shutdown short. (One that came after the drain, while the
    // process exits, would end it by the signal: no handler runs then.)
    await stopping;
    server.child.kill('SIGTERM');
    expect(await Promise.all([first, ...others])).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await server.exited).toBe(0);
  }, 120_000);

  it('rejects bad flags with exit code 2 and prints its usage on --help', async () => {
    const bad = capture();
    expect(await runCli(['serve', '--port', 'eighty'], bad.io)).toBe(2);
    expect(bad.err.join('')).toMatch(/--port must be an integer in \[0, 65535\], got 'eighty'/);
    const backend = capture();
    expect(await runCli(['serve', '--backend', 'gpu'], backend.io)).toBe(2);
    expect(backend.err.join('')).toMatch(/--backend must be one of wasm, cpu, tensorflow/);
    const unknown = capture();
    expect(await runCli(['serve', '--frobnicate'], unknown.io)).toBe(2);
    const help = capture();
    expect(await runCli(['serve', '--help'], help.io)).toBe(0);
    expect(help.out.join('')).toMatch(/^Usage: taorl serve \[options\]/);
    for (const flag of ['--model', '--host', '--port', '--model-name', '--max-batch', '--backend']) {
      expect(help.out.join('')).toContain(flag);
    }
    const usage = capture();
    await runCli(['--help'], usage.io);
    expect(usage.out.join('')).toMatch(/ {2}serve +Inference server/);
  });
});
