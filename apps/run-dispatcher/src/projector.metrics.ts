import { PROJECTED_PREFIXES } from '@wts/application';
import type { EventStore } from '@wts/event-store';
import type { ProjectorLag, ProjectorProgress } from '@wts/observability';
import type { ProjectorProgressSource } from './projector-thread.client';

/**
 * The read models' lag, measured when Prometheus scrapes: how far the store's head is past the
 * projector's last commit, and the age of the first projected event after it. Exact whether the
 * projector is working, stuck on its database or stopped.
 */
export function projectorProgress(store: EventStore, projector: ProjectorProgressSource): ProjectorProgress {
  return {
    async lag(): Promise<ProjectorLag | undefined> {
      if (!projector.isRunning) return undefined;
      const committed = projector.committedPosition();
      const head = await store.headPosition();
      if (!head || (committed && head.commit <= committed.commit)) return { events: 0, oldestAt: undefined };
      const [next] = await store.readAll({ after: committed, limit: 1, filter: { streamPrefixes: PROJECTED_PREFIXES } });
      return { events: Number(head.commit - (committed?.commit ?? 0n)), oldestAt: next?.createdAt.getTime() };
    },
  };
}
