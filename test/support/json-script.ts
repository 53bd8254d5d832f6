import { spawn } from 'node:child_process';

/**
 * Runs one of the project's Node scripts (the fuzz or chaos tool) with `--json` among `args` and
 * resolves with the summary it printed on stdout; rejects with the tail of its output when it
 * printed none. `what` names the run in that message.
 */
export function runJsonScript<T>(script: string, args: string[], what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-5000)));
    child.once('exit', () => {
      try {
        resolve(JSON.parse(stdout) as T);
      } catch {
        reject(new Error(`the ${what} run printed no summary:\n${stdout.slice(-2000)}\n${stderr}`));
      }
    });
  });
}
