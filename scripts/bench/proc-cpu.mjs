/** CPU time of processes and threads from Linux's /proc: user + system seconds used so far. */
import { readFileSync, readdirSync } from 'node:fs';

/** USER_HZ on Linux (getconf CLK_TCK). */
const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU seconds a process has used so far. */
export function cpuSeconds(pid) {
  return statCpuSeconds(`/proc/${pid}/stat`);
}

/** User + system CPU seconds each thread of a process has used so far, by thread id (the main thread's is the pid). */
export function threadCpuSeconds(pid) {
  return new Map(readdirSync(`/proc/${pid}/task`).map((tid) => [Number(tid), statCpuSeconds(`/proc/${pid}/task/${tid}/stat`)]));
}

function statCpuSeconds(statFile) {
  const stat = readFileSync(statFile, 'utf8');
  // The command name (in parentheses) may hold spaces: the fields start after its closing ") ".
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}
