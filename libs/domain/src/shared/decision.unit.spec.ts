import { RejectionError, accept, isRejection, reject, singleEventDecider } from './decision';

describe('decision helpers', () => {
  it('accept carries the events in order, and none when given none', () => {
    expect(accept(1, 2, 3)).toEqual({ kind: 'accepted', events: [1, 2, 3] });
    expect(accept()).toEqual({ kind: 'accepted', events: [] });
  });

  it('reject carries a code and a detail', () => {
    expect(reject('webhook_not_found', 'no such webhook')).toEqual({
      kind: 'rejected',
      code: 'webhook_not_found',
      detail: 'no such webhook',
    });
  });

  it('isRejection recognises rejections only', () => {
    expect(isRejection(reject('invalid_json', 'x'))).toBe(true);
    expect(isRejection(accept())).toBe(false);
    expect(isRejection(null)).toBe(false);
    expect(isRejection(undefined)).toBe(false);
    expect(isRejection('rejected')).toBe(false);
    expect(isRejection({ format: 'json', json: '{"kind":"rejected"}' })).toBe(false);
  });

  it('RejectionError carries the rejection through layers that can only throw', () => {
    const rejection = reject('account_not_found', 'no match');
    const error = new RejectionError(rejection);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('RejectionError');
    expect(error.rejection).toBe(rejection);
    expect(error.message).toBe('account_not_found: no match');
  });
});

describe('singleEventDecider', () => {
  type Noted = { readonly type: 'Noted'; readonly data: { readonly text: string } };
  const decide = (command: string, state: Noted['data'] | null) =>
    state === null ? accept<Noted>({ type: 'Noted', data: { text: command } }) : accept<Noted>();
  const decider = singleEventDecider(decide);

  it('given a decide function, then it decides with it, from a null initial state', () => {
    expect(decider.decide).toBe(decide);
    expect(decider.initialState()).toBeNull();
  });

  it("given events, then the state is the first one's data and later ones change nothing", () => {
    const first: Noted = { type: 'Noted', data: { text: 'first' } };
    const second: Noted = { type: 'Noted', data: { text: 'second' } };

    expect([first, second].reduce(decider.evolve, decider.initialState())).toBe(first.data);
  });
});
