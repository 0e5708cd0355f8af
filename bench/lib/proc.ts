import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | null = null;

function clockTicks(): number {
  if (ticksPerSecond === null) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User + system CPU time of a `/proc/<pid>/stat` line in clock ticks (fields 14 and 15, counted after the `(comm)`). */
export function parseProcStatTicks(stat: string): number | null {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime field 15.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? utime + stime : null;
}

/**
 * CPU seconds (user + system) the main thread of a process (its JavaScript event loop: the task whose id is the
 * process id) has used so far; null elsewhere or when the process is gone. The rest of a process's CPU time is
 * its other threads': the libuv pool (RSA signatures, zlib, file system), V8's garbage collection and compiler.
 */
export function mainThreadCpuSeconds(pid: number): number | null {
  return ticksOf(`/proc/${pid}/task/${pid}/stat`);
}

/**
 * CPU seconds (user + system, all threads) a process has used so far, from /proc (Linux); null elsewhere or
 * when the process is gone. Resolution: one clock tick (10 ms).
 */
export function processCpuSeconds(pid: number): number | null {
  return ticksOf(`/proc/${pid}/stat`);
}

function ticksOf(statPath: string): number | null {
  try {
    const ticks = parseProcStatTicks(readFileSync(statPath, 'utf8'));
    return ticks === null ? null : ticks / clockTicks();
  } catch {
    return null;
  }
}
