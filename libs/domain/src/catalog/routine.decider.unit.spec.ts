import type { RoutineDefinition, RoutineEvent } from '@wts/contracts';
import { ACCOUNT_A as A, ACCOUNT_B as B, ROUTINE_ID, T0, T1, specFor, triageRoutine } from '@wts/testing';
import { routineDecider, type RoutineCommand } from './routine.decider';

const UNKNOWN = 'acc_ZZZZZZZZZZZZZZZZZZZZZZ';
const KNOWN: ReadonlySet<string> = new Set([A, B]);

const definition: RoutineDefinition = triageRoutine();

const spec = specFor(routineDecider);

const create = (def: RoutineDefinition = definition, knownAccountIds = KNOWN): RoutineCommand => ({
  type: 'CreateRoutine',
  routineId: ROUTINE_ID,
  definition: def,
  knownAccountIds,
  now: T0,
});
const update = (changes: Partial<RoutineDefinition>, knownAccountIds = KNOWN): RoutineCommand => ({
  type: 'UpdateRoutine',
  routineId: ROUTINE_ID,
  changes,
  knownAccountIds,
  now: T1,
});
const created: RoutineEvent = { type: 'RoutineCreated', data: { routineId: ROUTINE_ID, ...definition, createdAt: T0 } };
const updatedEvent = (changes: Partial<RoutineDefinition>): RoutineEvent => ({
  type: 'RoutineUpdated',
  data: { routineId: ROUTINE_ID, changes, updatedAt: T1 },
});

describe('routineDecider', () => {
  it('starts with no routine', () => {
    expect(routineDecider.initialState()).toBeNull();
  });

  describe('CreateRoutine', () => {
    it('given no routine, when created with a known scope, then RoutineCreated carries the whole definition', () => {
      spec.given([]).when(create()).then([created]);
    });

    it('given no routine, when created with an empty scope, then it is created', () => {
      spec
        .given([])
        .when(create({ ...definition, accountScope: [] }))
        .then([{ type: 'RoutineCreated', data: { routineId: ROUTINE_ID, ...definition, accountScope: [], createdAt: T0 } }]);
    });

    it('given no routine, when the scope names an unknown account, then unknown_scope_account', () => {
      spec
        .given([])
        .when(create({ ...definition, accountScope: [A, UNKNOWN] }))
        .thenRejects('unknown_scope_account');
    });

    it('given an existing routine, when created again, then it is rejected', () => {
      spec.given([created]).when(create()).thenRejects('validation_failed');
    });

    it('given a creation folded, then the state is the definition with created and updated times', () => {
      const state = [created].reduce(routineDecider.evolve, routineDecider.initialState());
      expect(state).toEqual({ routineId: ROUTINE_ID, ...definition, createdAt: T0, updatedAt: T0 });
    });
  });

  describe('UpdateRoutine', () => {
    it('given no routine, when updated, then routine_not_found', () => {
      spec
        .given([])
        .when(update({ name: 'x' }))
        .thenRejects('routine_not_found');
    });

    it('given a routine, when updated with no changes, then nothing happens', () => {
      spec.given([created]).when(update({})).then([]);
    });

    it('given a routine, when fields change, then RoutineUpdated carries exactly the changes', () => {
      const changes: Partial<RoutineDefinition> = { mode: 'autonomous', accountScope: [A, B] };
      spec
        .given([created])
        .when(update(changes))
        .then([updatedEvent(changes)]);
    });

    it('given a routine, when the scope changes to name an unknown account, then unknown_scope_account', () => {
      spec
        .given([created])
        .when(update({ accountScope: [B, UNKNOWN] }))
        .thenRejects('unknown_scope_account');
    });

    it('given a routine, when other fields change without a scope, then the known accounts are not consulted', () => {
      spec
        .given([created])
        .when(update({ name: 'Renamed' }, new Set()))
        .then([updatedEvent({ name: 'Renamed' })]);
    });

    it('given an update folded, then changed fields are replaced, others kept, updatedAt moves', () => {
      const state = [created, updatedEvent({ mode: 'autonomous', tools: [] })].reduce(routineDecider.evolve, routineDecider.initialState());
      expect(state).toEqual({
        routineId: ROUTINE_ID,
        ...definition,
        mode: 'autonomous',
        tools: [],
        createdAt: T0,
        updatedAt: T1,
      });
    });

    it('given no routine, a stray update folds to no routine', () => {
      expect(routineDecider.evolve(null, updatedEvent({ name: 'x' }))).toBeNull();
    });
  });
});
