import type { TriggerAccount, WebhookEvent } from '@wts/contracts';
import { assertNever } from '@wts/contracts';
import type { SafetyVerdict } from '../safety/safety.policy';
import { accept, reject, type Decider, type Decision } from '../shared/decision';

export interface ConfiguredWebhook {
  readonly status: 'enabled' | 'disabled';
  readonly webhookId: string;
  readonly routineId: string;
  readonly secretDigest: string;
  readonly defaultAccount: TriggerAccount;
  readonly accountOverrideAllowed: boolean;
  readonly blocked: boolean;
  readonly blockedReason: string | null;
}

export type WebhookState = { readonly status: 'not_configured' } | ConfiguredWebhook;

export type WebhookCommand =
  | {
      readonly type: 'EnableWebhook';
      readonly webhookId: string;
      readonly routineId: string;
      readonly secretDigest: string;
      readonly defaultAccount: TriggerAccount;
      readonly accountOverrideAllowed: boolean;
      readonly safety: SafetyVerdict;
      readonly now: string;
    }
  | { readonly type: 'RotateSecret'; readonly secretDigest: string; readonly now: string }
  | { readonly type: 'DisableWebhook'; readonly now: string }
  | { readonly type: 'ReassessSafety'; readonly safety: SafetyVerdict; readonly now: string };

export const initialWebhookState = (): WebhookState => ({ status: 'not_configured' });

function safetyEvents(webhookId: string, wasBlocked: boolean, safety: SafetyVerdict, now: string): WebhookEvent[] {
  if (safety.blocked && !wasBlocked) {
    return [{ type: 'WebhookBlocked', data: { webhookId, reason: safety.reason, blockedAt: now } }];
  }
  if (!safety.blocked && wasBlocked) return [{ type: 'WebhookUnblocked', data: { webhookId, unblockedAt: now } }];
  return [];
}

export function decideWebhook(command: WebhookCommand, state: WebhookState): Decision<WebhookEvent> {
  switch (command.type) {
    case 'EnableWebhook': {
      if (state.status === 'enabled') {
        return reject('webhook_already_enabled', 'the webhook is enabled: rotate the secret or disable it first');
      }
      if (state.status === 'disabled' && state.webhookId !== command.webhookId) {
        return reject('validation_failed', 're-enabling must keep the webhook id (the URL is stable)');
      }
      const wasBlocked = state.status === 'disabled' && state.blocked;
      return accept<WebhookEvent>(
        {
          type: 'WebhookEnabled',
          data: {
            webhookId: command.webhookId,
            routineId: command.routineId,
            secretDigest: command.secretDigest,
            defaultAccount: command.defaultAccount,
            accountOverrideAllowed: command.accountOverrideAllowed,
            enabledAt: command.now,
          },
        },
        ...safetyEvents(command.webhookId, wasBlocked, command.safety, command.now),
      );
    }
    case 'RotateSecret':
      if (state.status !== 'enabled') return reject('webhook_not_enabled', 'only an enabled webhook can rotate its secret');
      return accept({
        type: 'SecretRotated',
        data: { webhookId: state.webhookId, secretDigest: command.secretDigest, rotatedAt: command.now },
      });
    case 'DisableWebhook':
      if (state.status === 'not_configured') return reject('webhook_not_configured', 'the routine has no webhook');
      if (state.status === 'disabled') return accept();
      return accept({ type: 'WebhookDisabled', data: { webhookId: state.webhookId, disabledAt: command.now } });
    case 'ReassessSafety':
      if (state.status === 'not_configured') return accept();
      return accept(...safetyEvents(state.webhookId, state.blocked, command.safety, command.now));
    default:
      return assertNever(command);
  }
}

export function evolveWebhook(state: WebhookState, event: WebhookEvent): WebhookState {
  switch (event.type) {
    case 'WebhookEnabled':
      return {
        status: 'enabled',
        webhookId: event.data.webhookId,
        routineId: event.data.routineId,
        secretDigest: event.data.secretDigest,
        defaultAccount: event.data.defaultAccount,
        accountOverrideAllowed: event.data.accountOverrideAllowed,
        blocked: state.status === 'not_configured' ? false : state.blocked,
        blockedReason: state.status === 'not_configured' ? null : state.blockedReason,
      };
    case 'SecretRotated':
      return state.status === 'not_configured' ? state : { ...state, secretDigest: event.data.secretDigest };
    case 'WebhookDisabled':
      return state.status === 'not_configured' ? state : { ...state, status: 'disabled' };
    case 'WebhookBlocked':
      return state.status === 'not_configured' ? state : { ...state, blocked: true, blockedReason: event.data.reason };
    case 'WebhookUnblocked':
      return state.status === 'not_configured' ? state : { ...state, blocked: false, blockedReason: null };
    default:
      return assertNever(event);
  }
}

export const webhookDecider: Decider<WebhookCommand, WebhookEvent, WebhookState> = {
  decide: decideWebhook,
  evolve: evolveWebhook,
  initialState: initialWebhookState,
};
