import type { GlobalPosition } from '../event-store.port';
import { newEvent, type ContractContext } from './contract.fixtures';

export function checkpointContract(context: () => ContractContext): void {
  describe('checkpoints', () => {
    it('loads undefined for an unknown name', async () => {
      const { subject, ns } = context();
      expect(await subject.checkpoints.load(`${ns}-never-saved`)).toBeUndefined();
    });

    it('round-trips positions by name, the last save winning', async () => {
      const { subject, ns } = context();
      const first = await subject.store.append(`${ns}cp`, [newEvent()], 'no_stream');
      const second = await subject.store.append(`${ns}cp`, [newEvent()], 0n);
      if (first.kind !== 'appended' || second.kind !== 'appended') throw new Error('expected appends');

      await subject.checkpoints.save(`${ns}-a`, first.position);
      await subject.checkpoints.save(`${ns}-b`, first.position);
      await subject.checkpoints.save(`${ns}-a`, second.position);

      expect(await subject.checkpoints.load(`${ns}-a`)).toEqual(second.position);
      expect(await subject.checkpoints.load(`${ns}-b`)).toEqual(first.position);
    });

    it('keeps saved checkpoints across a restart', async () => {
      const { subject, ns } = context();
      const position: GlobalPosition = { commit: 1234n, prepare: 1234n };
      await subject.checkpoints.save(`${ns}-durable`, position);
      if (!subject.reopen) return;

      await subject.store.close();
      const reopened = await subject.reopen();

      expect(await reopened.checkpoints.load(`${ns}-durable`)).toEqual(position);
    });
  });
}
