import type { RoutineTool } from '@wts/contracts';
import { judgeRoutineSafety } from './safety.policy';

const reader: RoutineTool = { name: 'crm.read', sendsExternally: false };
const mailer: RoutineTool = { name: 'email.send', sendsExternally: true };
const poster: RoutineTool = { name: 'slack.post', sendsExternally: true };

describe('judgeRoutineSafety', () => {
  it('given a supervised routine with an external-sending tool, then it is not blocked', () => {
    expect(judgeRoutineSafety({ mode: 'supervised', tools: [reader, mailer] })).toEqual({ blocked: false });
  });

  it('given an autonomous routine with no tools, then it is not blocked', () => {
    expect(judgeRoutineSafety({ mode: 'autonomous', tools: [] })).toEqual({ blocked: false });
  });

  it('given an autonomous routine whose tools do not send externally, then it is not blocked', () => {
    expect(judgeRoutineSafety({ mode: 'autonomous', tools: [reader] })).toEqual({ blocked: false });
  });

  it('given an autonomous routine with an external-sending tool, then it is blocked with a reason and a remedy', () => {
    const verdict = judgeRoutineSafety({ mode: 'autonomous', tools: [reader, mailer] });
    expect(verdict.blocked).toBe(true);
    if (!verdict.blocked) return;
    expect(verdict.reason).toContain('email.send');
    expect(verdict.reason).not.toContain('crm.read');
    expect(verdict.reason).toMatch(/autonom/i);
    expect(verdict.remedy).toMatch(/supervised/i);
    expect(verdict.remedy).toMatch(/remove/i);
  });

  it('given several external-sending tools, then the reason names each of them', () => {
    const verdict = judgeRoutineSafety({ mode: 'autonomous', tools: [mailer, reader, poster] });
    expect(verdict).toMatchObject({ blocked: true });
    if (!verdict.blocked) return;
    expect(verdict.reason).toContain('email.send, slack.post');
  });

  it('is pure: it leaves its input as it was, and equal routines get equal verdicts whatever the clock or the calls before', () => {
    const deepFreeze = <T>(value: T): T => {
      if (value && typeof value === 'object') for (const inner of Object.values(value)) deepFreeze(inner);
      return Object.freeze(value);
    };
    const routine = () => ({ mode: 'autonomous' as const, tools: [{ ...reader }, { ...mailer }, { ...poster }] });
    // Frozen: any write to the input throws (strict mode), so mutating it fails this test.
    const frozen = deepFreeze(routine());
    const first = judgeRoutineSafety(frozen);
    expect(frozen).toEqual(routine());

    // Another time, other calls in between, a distinct but equal input: the same verdict.
    jest.useFakeTimers({ now: new Date('2099-12-31T23:59:59Z') });
    try {
      judgeRoutineSafety({ mode: 'supervised', tools: [] });
      judgeRoutineSafety({ mode: 'autonomous', tools: [reader] });
      expect(judgeRoutineSafety(routine())).toEqual(first);
    } finally {
      jest.useRealTimers();
    }
    expect(first).toEqual({ blocked: true, reason: expect.stringContaining('email.send, slack.post'), remedy: expect.any(String) });
  });
});
