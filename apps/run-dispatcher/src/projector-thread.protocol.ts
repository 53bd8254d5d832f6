import type { AppConfig } from '@wts/config';
import type { GlobalPosition } from '@wts/event-store';

/** What the projector thread opens: the service's event store and read-model database, as configured. */
export type ProjectorThreadSettings = Pick<AppConfig, 'eventStore' | 'storage' | 'database'>;

/** The thread's workerData: its settings, and its entry (`.ts` under the tests' loader). */
export interface ProjectorThreadData {
  readonly settings: ProjectorThreadSettings;
  readonly entry: string;
}

/** The main thread's one request: stop after the batch in flight, close, then say so. */
export interface ProjectorStopCommand {
  readonly kind: 'stop';
}

/** What the thread tells the main thread: its log lines, where the read models are, and that it stopped. */
export type ProjectorThreadReport =
  | { readonly kind: 'log'; readonly level: 'info' | 'error'; readonly fields: Readonly<Record<string, unknown>>; readonly message: string }
  | { readonly kind: 'progress'; readonly committed: GlobalPosition | undefined; readonly running: boolean }
  | { readonly kind: 'stopped' };
