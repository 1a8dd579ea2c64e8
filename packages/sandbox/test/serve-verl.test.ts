import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../src/index';
import { type SandboxServer, startSandboxServer } from '../src/node';

// A client no one here wrote: verl's SandboxFusion client (test/fixtures/verl/sandbox_fusion_utils.py, copied
// unmodified), run by Debian's python3 with python3-requests, against taorl-sandbox serve on 127.0.0.1.

const PYTHON = '/usr/bin/python3';
const DRIVER = resolve(import.meta.dirname, 'fixtures/verl/run_verl_client.py');

interface VerlMetadata {
  status: string;
  api_status: string | null;
  run_status: string | null;
  stdout: string | null;
  stderr: string | null;
  exit_code: number | null;
  api_request_error: string | null;
}
interface VerlOutput {
  reward: { results: (boolean | number)[]; metadata: VerlMetadata[] }[];
  tool: { status: boolean | number; metadata: VerlMetadata }[];
}

let server: SandboxServer;

beforeAll(async () => {
  // Default options, as a user of verl would start it.
  server = await startSandboxServer({ sandbox: await createSandbox({ workers: 2 }), port: 0 });
});
afterAll(async () => {
  await server?.close();
});

async function verl(job: Record<string, unknown>): Promise<VerlOutput> {
  const { stdout } = await promisify(execFile)(
    PYTHON,
    [DRIVER, JSON.stringify({ url: `${server.url}/run_code`, ...job })],
    {
      timeout: 900_000,
      maxBuffer: 64 * 1024 * 1024,
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', PYTHONDONTWRITEBYTECODE: '1' },
    },
  );
  return JSON.parse(stdout) as VerlOutput;
}

describe("verl's SandboxFusion client against taorl-sandbox serve", () => {
  it('is verl’s file unmodified: its SHA-256 is the one the fixture README records', () => {
    const file = readFileSync(resolve(import.meta.dirname, 'fixtures/verl/sandbox_fusion_utils.py'));
    const recorded = /SHA-256: ([0-9a-f]{64})/.exec(
      readFileSync(resolve(import.meta.dirname, 'fixtures/verl/README.md'), 'utf8'),
    )?.[1];
    expect(createHash('sha256').update(file).digest('hex')).toBe(recorded);
  });

  it('runs with Debian python3 and its python3-requests', async () => {
    const { stdout } = await promisify(execFile)(PYTHON, ['-c', 'import requests; print(requests.__file__)']);
    expect(stdout).toMatch(/^\/usr\/lib\/python3\/dist-packages\/requests\//);
  });

  it('reward path (check_correctness): right, wrong, crashing and endless programs get verl’s codes', async () => {
    const in_outs = { inputs: ['1 2\n', '30 4\n'], outputs: ['3\n', '34\n'] };
    const output = await verl({
      reward: [
        { generation: 'a, b = map(int, input().split())\nprint(a + b)', in_outs },
        { generation: 'a, b = map(int, input().split())\nprint(a * b)', in_outs },
        { generation: 'a, b = map(int, input().split())\nprint(a / 0)', in_outs },
        { generation: 'while True:\n    pass', in_outs, timeout: 1 },
      ],
    });
    // verl's codes: True right, False wrong answer, -2 runtime error, -3 timeout.
    expect(output.reward.map((one) => one.results)).toEqual([
      [true, true],
      [false, false],
      [-2, -2],
      [-3, -3],
    ]);
    expect(output.reward[1]?.metadata[1]).toMatchObject({ status: 'wrong_answer', stdout: '120\n' });
    expect(output.reward[2]?.metadata[0]).toMatchObject({ status: 'runtime_error', exit_code: 1 });
    expect(output.reward[2]?.metadata[0]?.stderr).toMatch(/File "<cell>", line 2[\s\S]*ZeroDivisionError/);
    expect(output.reward[3]?.metadata[0]).toMatchObject({
      status: 'timeout',
      run_status: 'TimeLimitExceeded',
    });
  });

  it('tool path (_process_single_case, as SandboxFusionTool.execute_code calls it)', async () => {
    const output = await verl({
      tool: [
        { code: 'import sympy\nprint(sympy.factorint(2**32 + 1))' },
        { code: 'import os\nprint(open("/etc/shadow").read())' },
      ],
    });
    expect(output.tool[0]).toMatchObject({
      status: true,
      metadata: { status: 'success', api_status: 'Success', stdout: '{641: 1, 6700417: 1}\n', exit_code: 0 },
    });
    expect(output.tool[1]).toMatchObject({ status: -2, metadata: { status: 'runtime_error' } });
    expect(output.tool[1]?.metadata.stderr).toMatch(/(PermissionError|FileNotFoundError)/);
  });

  it('a language other than Python fails the call with the HTTP error', async () => {
    const output = await verl({
      reward: [{ generation: 'int main() {}', in_outs: { inputs: [''], outputs: [''] }, language: 'cpp' }],
    });
    expect(output.reward[0]?.results).toEqual([-1]);
    expect(output.reward[0]?.metadata[0]).toMatchObject({ status: 'api_error' });
    expect(output.reward[0]?.metadata[0]?.api_request_error).toMatch(/422 Client Error/);
  });

  it('1,024 calls at once on 2 workers: every one answered right, none lost to back-pressure or timeouts', async () => {
    // The case: before the queue was bounded by memory, 256 at once got 16 answers and 240 API errors
    // (429, which verl does not retry); with a queue wait limit of 15 s and 504s, 1,024 at once lost 571 after
    // three tries. verl's client times a try out after 30 s without a byte (compile_timeout + run_timeout + 10 s)
    // and retries only a 504, twice: the heartbeat keeps every waiting call's connection alive instead.
    const calls = 1024;
    const output = await verl({
      threads: calls,
      tool: Array.from({ length: calls }, (_, index) => ({ code: `print(${index})`, timeout: 10 })),
    });
    const wrong = output.tool.flatMap((call, index) =>
      call.status === true && call.metadata.stdout === `${index}\n`
        ? []
        : [`${index}: ${call.metadata.status} ${call.metadata.api_request_error ?? call.metadata.stderr}`],
    );
    expect(wrong).toEqual([]);
    expect(output.tool).toHaveLength(calls);
  }, 900_000);
});
