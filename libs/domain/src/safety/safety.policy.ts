import type { RoutineDefinition } from '@wts/contracts';

export type SafetyVerdict = { readonly blocked: false } | { readonly blocked: true; readonly reason: string; readonly remedy: string };

/**
 * Untrusted input plus autonomous external sending is blocked. Webhook-triggered routines are
 * judged like email-triggered ones: the input is untrusted, so the routine must either run
 * supervised or have no tool that sends externally.
 */
export function judgeRoutineSafety(routine: Pick<RoutineDefinition, 'mode' | 'tools'>): SafetyVerdict {
  if (routine.mode !== 'autonomous') return { blocked: false };
  const senders = routine.tools.filter((tool) => tool.sendsExternally).map((tool) => tool.name);
  if (senders.length === 0) return { blocked: false };
  return {
    blocked: true,
    reason: `The routine runs autonomously and can send externally (${senders.join(', ')}) while triggered by untrusted webhook input.`,
    remedy: 'Switch the routine to supervised mode, or remove the tools that send externally.',
  };
}
