import { PROJECTED_PREFIXES } from '@wts/application';
import type { EventStore } from '@wts/event-store';
import type { ProjectorLag, ProjectorProgress } from '@wts/observability';
import type { ProjectorThreadProgress } from './dispatcher-threads.factory';

/**
 * The read models' lag, measured when Prometheus scrapes: how far the store's head is past the
 * projector's last commit, and the age of the first projected event after it. Exact whether the
 * projector is working, stuck on its database or stopped.
 */
export function projectorProgress(store: EventStore, last: () => ProjectorThreadProgress | undefined): ProjectorProgress {
  return {
    async lag(): Promise<ProjectorLag | undefined> {
      const progress = last();
      if (!progress?.running) return undefined;
      const { committed } = progress;
      const head = await store.headPosition();
      if (!head || (committed && head.commit <= committed.commit)) return { events: 0, oldestAt: undefined };
      const [next] = await store.readAll({ after: committed, limit: 1, filter: { streamPrefixes: PROJECTED_PREFIXES } });
      return { events: Number(head.commit - (committed?.commit ?? 0n)), oldestAt: next?.createdAt.getTime() };
    },
  };
}
