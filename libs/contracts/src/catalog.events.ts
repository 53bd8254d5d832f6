import type { Event } from './event.contract';

/** The single stream holding every connected account: uniqueness of emails needs one aggregate. */
export const ACCOUNT_CATALOG_STREAM = 'account-catalog';

export type AccountConnected = Event<
  'AccountConnected',
  {
    readonly accountId: string;
    readonly email: string;
    readonly aliases: readonly string[];
    readonly connectedAt: string;
  }
>;

export type AccountUpdated = Event<
  'AccountUpdated',
  {
    readonly accountId: string;
    readonly aliases?: readonly string[];
    readonly active?: boolean;
    readonly updatedAt: string;
  }
>;

export type PrimaryAccountChanged = Event<
  'PrimaryAccountChanged',
  {
    readonly accountId: string | null;
    readonly previousAccountId: string | null;
    readonly changedAt: string;
  }
>;

export type AccountCatalogEvent = AccountConnected | AccountUpdated | PrimaryAccountChanged;

export type RoutineMode = 'supervised' | 'autonomous';

export interface RoutineTool {
  readonly name: string;
  readonly sendsExternally: boolean;
}

export interface RoutineDefinition {
  readonly name: string;
  readonly instructions: string;
  readonly tools: readonly RoutineTool[];
  readonly mode: RoutineMode;
  readonly accountScope: readonly string[];
}

export type RoutineCreated = Event<'RoutineCreated', RoutineDefinition & { readonly routineId: string; readonly createdAt: string }>;

export type RoutineUpdated = Event<
  'RoutineUpdated',
  {
    readonly routineId: string;
    readonly changes: Partial<RoutineDefinition>;
    readonly updatedAt: string;
  }
>;

export type RoutineEvent = RoutineCreated | RoutineUpdated;
