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

  it('is pure: the same routine always gets the same verdict', () => {
    const routine = { mode: 'autonomous' as const, tools: [mailer] };
    expect(judgeRoutineSafety(routine)).toEqual(judgeRoutineSafety(routine));
  });
});
