import { existsSync, mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryCgroups, findMemoryHierarchy } from '../src/local/memory-cgroup';
import { isRoot } from './helpers';

// Where the runs' memory cgroups go, from /proc/self/cgroup and /proc/self/mountinfo as three kinds of machine
// write them. (Creating and using them is tested live in security-runs.test.ts, on the hierarchy of the machine.)
const mount = (id: number, root: string, point: string, type: string, options: string) =>
  `${id} 23 0:${id} ${root} ${point} rw,relatime - ${type} ${type} ${options}`;

describe('findMemoryHierarchy', () => {
  it('hybrid (memory on a v1 hierarchy, an empty unified one beside it): v1', () => {
    const cgroup = '9:name=systemd:/\n4:memory:/process_api/abc\n1:cpu:/\n0::/\n';
    const mountinfo = [
      mount(31, '/', '/sys/fs/cgroup', 'tmpfs', 'rw,mode=755'),
      mount(32, '/', '/sys/fs/cgroup/cpu', 'cgroup', 'rw,cpu'),
      mount(35, '/', '/sys/fs/cgroup/memory', 'cgroup', 'rw,memory'),
      mount(41, '/', '/sys/fs/cgroup/unified', 'cgroup2', 'rw'),
    ].join('\n');
    expect(findMemoryHierarchy(cgroup, mountinfo)).toEqual({
      version: 1,
      directory: '/sys/fs/cgroup/memory/process_api/abc',
    });
  });

  it('unified (cgroup v2 only): v2', () => {
    const cgroup = '0::/user.slice/user-0.slice/session-3.scope\n';
    const mountinfo = mount(30, '/', '/sys/fs/cgroup', 'cgroup2', 'rw,nsdelegate,memory_recursiveprot');
    expect(findMemoryHierarchy(cgroup, mountinfo)).toEqual({
      version: 2,
      directory: '/sys/fs/cgroup/user.slice/user-0.slice/session-3.scope',
    });
  });

  it('a v1 hierarchy mounted from a subtree (a container without a cgroup namespace)', () => {
    const cgroup = '5:memory:/docker/f00/inner\n';
    const mountinfo = mount(35, '/docker/f00', '/sys/fs/cgroup/memory', 'cgroup', 'ro,memory');
    expect(findMemoryHierarchy(cgroup, mountinfo)).toEqual({
      version: 1,
      directory: '/sys/fs/cgroup/memory/inner',
    });
  });

  it('no cgroup file system mounted: the reason', () => {
    expect(findMemoryHierarchy('0::/\n', mount(20, '/', '/proc', 'proc', 'rw'))).toEqual({
      reason: 'no cgroup hierarchy with a memory controller is mounted',
    });
    expect(findMemoryHierarchy('4:memory:/a\n', mount(20, '/', '/proc', 'proc', 'rw'))).toEqual({
      reason: 'the v1 memory hierarchy is not mounted here',
    });
  });
});

describe.skipIf(!isRoot)('seats left by a host process that ended without close()', () => {
  it('are removed when a sandbox creates its seats; those of live processes stay', async (context) => {
    const hierarchy = findMemoryHierarchy(
      readFileSync('/proc/self/cgroup', 'utf8'),
      readFileSync('/proc/self/mountinfo', 'utf8'),
    );
    if ('reason' in hierarchy) context.skip();
    if ('reason' in hierarchy) return;
    const pidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
    const dead = join(hierarchy.directory, `taorl-sandbox-${pidMax + 1}-0-0`); // no process can have this pid
    const live = join(hierarchy.directory, `taorl-sandbox-${process.pid}-99-99`);
    mkdirSync(dead);
    mkdirSync(live);
    try {
      const seats = createMemoryCgroups(1);
      if ('reason' in seats) throw new Error(seats.reason);
      await seats.remove();
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(live)).toBe(true);
    } finally {
      for (const path of [dead, live]) if (existsSync(path)) rmdirSync(path);
    }
  });
});
