import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../src/index';
import { type SandboxServer, startSandboxServer } from '../src/node';
import { http } from './serve-http';

// SandboxFusion's own tests of the python /run_code path, ported to HTTP against taorl-sandbox serve. The cases
// (code, request fields and what is asserted) come from bytedance/SandboxFusion, Apache-2.0:
// sandbox/tests/runners/test_python.py, test_pytest.py, test_isolation.py and sandbox/tests/datasets/test_antihack.py
// (its Python header, sandbox/utils/antihack.py). Rewritten here, not copied. Not ported, because they cannot apply:
// test_jupyter.py (this server has no /run_jupyter) and the other languages' runners (it runs Python only). One
// ported case asserts the opposite of SandboxFusion's on purpose: external network access, which the sandbox
// denies (docs/remote.md, the compatibility table).

let server: SandboxServer;

beforeAll(async () => {
  server = await startSandboxServer({ sandbox: await createSandbox({ workers: 2 }), port: 0 });
});
afterAll(async () => {
  await server?.close();
});

interface RunCodeAnswer {
  status: 'Success' | 'Failed' | 'SandboxError';
  message: string;
  run_result: {
    status: 'Finished' | 'TimeLimitExceeded' | 'Error';
    return_code: number | null;
    stdout: string;
    stderr: string;
  } | null;
  files: Record<string, string>;
}

/** A RunCodeRequest as SandboxFusion's tests build it (pydantic fills the defaults the client leaves out). */
async function runCode(fields: Record<string, unknown>): Promise<RunCodeAnswer> {
  const answer = await http(server.url, '/run_code', {
    body: {
      compile_timeout: 10,
      run_timeout: 10,
      memory_limit_MB: -1,
      stdin: null,
      files: {},
      fetch_files: [],
      ...fields,
    },
  });
  expect(answer.status, answer.text).toBe(200);
  return answer.json() as RunCodeAnswer;
}

describe('SandboxFusion test_python.py over HTTP', () => {
  it('test_python_print', async () => {
    const result = await runCode({ language: 'python', code: 'print(123)', run_timeout: 5 });
    expect(result.status).toBe('Success');
    expect(result.run_result?.stdout.trim()).toBe('123');
  });

  it('test_python_timeout', async () => {
    const result = await runCode({
      language: 'python',
      code: 'import time; time.sleep(0.2)',
      run_timeout: 0.1,
    });
    expect(result.status).toBe('Failed');
    expect(result.run_result?.status).toBe('TimeLimitExceeded');
  });

  it('test_python_assertion_error', async () => {
    const result = await runCode({ language: 'python', code: 'assert 1 == 2', run_timeout: 5 });
    expect(result.status).toBe('Failed');
    expect(result.run_result?.status).toBe('Finished');
    expect(result.run_result?.stderr).toContain('AssertionError');
  });

  it('test_python_syntax_error', async () => {
    const result = await runCode({ language: 'python', code: 'int a = 1', run_timeout: 5 });
    expect(result.status).toBe('Failed');
    expect(result.run_result?.status).toBe('Finished');
    expect(result.run_result?.stderr).toContain('SyntaxError: invalid syntax');
  });

  it('test_python_file_read', async () => {
    const result = await runCode({
      language: 'python',
      code: 'print(open("dir1/dir2/dir3/secret_flag").read())',
      run_timeout: 5,
      files: { 'dir1/dir2/dir3/secret_flag': Buffer.from('"hello, this is a test"').toString('base64') },
    });
    expect(result.status).toBe('Success');
    expect(result.run_result?.status).toBe('Finished');
    expect(result.run_result?.stdout).toContain('hello, this is a test');
  });

  it('test_python_stdin', async () => {
    const result = await runCode({
      language: 'python',
      code: 'print(int(input()))',
      run_timeout: 5,
      stdin: '65535',
    });
    expect(result.status).toBe('Success');
    expect(result.run_result?.status).toBe('Finished');
    expect(result.run_result?.stdout).toBe('65535\n');
  });

  it("test_python_fetch_files (an absolute path lands in the run's own scratch space)", async () => {
    const result = await runCode({
      language: 'python',
      code: 'open("a.txt", "w").write("secret"); open("/mnt/b", "w").write("sauce");',
      run_timeout: 5,
      fetch_files: ['a.txt', '/mnt/b'],
    });
    expect(result.status).toBe('Success');
    expect(result.run_result?.status).toBe('Finished');
    expect(Buffer.from(result.files['a.txt'] ?? '', 'base64').toString()).toBe('secret');
    expect(Buffer.from(result.files['/mnt/b'] ?? '', 'base64').toString()).toBe('sauce');
  });
});

// A test module that passes under pytest (and does nothing as a plain script); FAILING_TESTS inverts its asserts.
const PASSING_TESTS = `
import string
from collections import Counter


def word_count(file_path):
    try:
        with open(file_path, 'r', encoding='utf-8') as file:
            content = file.read()
        content = content.translate(str.maketrans("", "", string.punctuation)).lower()
        for word, count in sorted(Counter(content.split()).items(), key=lambda x: x[1], reverse=True):
            print(f"'{word}': {count}")
    except FileNotFoundError:
        print(f"Error: File '{file_path}' not found.")


class Testword_count:
    def test_word_count_case_sensitive_file(self, capfd, tmp_path):
        file_path = tmp_path / 'test_case_sensitive.txt'
        with open(file_path, 'w', encoding='utf-8') as file:
            file.write("Case case CASE")
        word_count(file_path)
        captured = capfd.readouterr()
        assert "'case': 3" in captured.out

    def test_word_count_punctuation_file(self, capfd, tmp_path):
        file_path = tmp_path / 'test_punctuation.txt'
        with open(file_path, 'w', encoding='utf-8') as file:
            file.write("This sentence has some punctuation, like commas and periods.")
        word_count(file_path)
        captured = capfd.readouterr()
        assert "'this': 1\\n'sentence': 1\\n'has': 1\\n'some': 1\\n'punctuation': 1\\n'like': 1\\n'commas': 1\\n'and': 1\\n'periods': 1\\n" in captured.out
`;
const FAILING_TESTS = PASSING_TESTS.replaceAll('" in captured.out', '" not in captured.out');

describe('SandboxFusion test_pytest.py over HTTP', () => {
  it('test_pytest_pass', async () => {
    expect((await runCode({ language: 'python', code: PASSING_TESTS, run_timeout: 5 })).status).toBe(
      'Success',
    );
    const result = await runCode({ language: 'pytest', code: PASSING_TESTS, run_timeout: 5 });
    expect(result.status, result.run_result?.stdout).toBe('Success');
  });

  it('test_pytest_fail', async () => {
    expect((await runCode({ language: 'python', code: FAILING_TESTS, run_timeout: 5 })).status).toBe(
      'Success',
    );
    const result = await runCode({ language: 'pytest', code: FAILING_TESTS, run_timeout: 5 });
    expect(result.status).toBe('Failed');
  });
});

/** test_isolation.py's server: an HTTP server on a port in a daemon thread, asked by `requests` on `host`. */
function loopbackServer(port: number, host: string, waitS: number): string {
  return `
import http.server
import socketserver
import sys
import threading
import time
import requests


class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header('Content-type', 'text/html')
        self.end_headers()
        self.wfile.write(b'Hello, this is a special string!')


def serve():
    try:
        with socketserver.TCPServer(("", ${port}), Handler) as httpd:
            httpd.serve_forever()
    except Exception as e:
        print(e)
        sys.exit(1)


threading.Thread(target=serve, daemon=True).start()
time.sleep(${waitS})
response = requests.get("http://${host}:${port}")
if response.status_code == 200 and "special string" in response.text:
    print("Test Passed: Correct response received.")
else:
    print("Test Failed: Incorrect response received.")
`;
}

const randomPort = () => 30_000 + Math.floor(Math.random() * 30_000);

describe('SandboxFusion test_isolation.py over HTTP', () => {
  it('test_isolation_network_server_127', async () => {
    const result = await runCode({
      language: 'python',
      code: loopbackServer(randomPort(), '127.0.0.1', 1),
      run_timeout: 5,
    });
    expect(result.status, result.run_result?.stderr).toBe('Success');
    expect(result.run_result?.stdout).toContain('Test Passed');
  });

  it('test_isolation_network_server_localhost', async () => {
    const result = await runCode({
      language: 'python',
      code: loopbackServer(randomPort(), 'localhost', 1),
      run_timeout: 5,
    });
    expect(result.status, result.run_result?.stderr).toBe('Success');
    expect(result.run_result?.stdout).toContain('Test Passed');
  });

  it('test_isolation_network_server_port_conflict (two runs on one port at once)', async () => {
    const code = loopbackServer(randomPort(), '127.0.0.1', 2);
    const results = await Promise.all(
      [1, 2].map(() => runCode({ language: 'python', code, run_timeout: 6 })),
    );
    for (const result of results) {
      expect(result.status, result.run_result?.stderr).toBe('Success');
      expect(result.run_result?.stdout).toContain('Test Passed');
    }
  });

  it('test_isolation_network_external_access: denied here on purpose (SandboxFusion expects Success)', async () => {
    const code = 'import requests\nprint(requests.get("https://www.sina.com.cn", timeout=5).status_code)';
    const result = await runCode({ language: 'python', code, run_timeout: 20 });
    expect(result.status).toBe('Failed');
    expect(result.run_result?.stderr).toMatch(/ConnectionError|NameResolution|Temporary failure/);
  });
});

// SandboxFusion's anti-hack header for Python: code after it must not be able to exit early with a success.
const ANTI_HACK_HEADER = `
# --- anti-hack code begin
import os
import sys
exit = None
os._exit = None
sys.exit = None
# --- anti-hack code end
`;

describe('SandboxFusion test_antihack.py (APython) over HTTP', () => {
  it.each([
    ["print('hello')", 'Success'],
    ['exit(0)', 'Failed'],
    ['import os\nos._exit(0)', 'Failed'],
    ['import sys\nsys.exit(0)', 'Failed'],
  ])('%s after the header: %s', async (code, status) => {
    const result = await runCode({ language: 'python', code: `${ANTI_HACK_HEADER}\n\n${code}` });
    expect(result.status).toBe(status);
    // The run's own TypeError, never a traceback of the sandbox's machinery.
    expect(result.run_result?.stderr).not.toMatch(/File "<string>"|start_child|child_main/);
  });
});
