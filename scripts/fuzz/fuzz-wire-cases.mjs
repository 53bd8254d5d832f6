/* global Buffer */
/**
 * The fuzz families of the wire (fuzz-cases.mjs has the request's content): bodies sent slowly or
 * cut short, oversized and malformed headers, account selection, broken request lines, pipelined
 * requests and idempotency-key races. Same case shape and weights as there; the order is kept, so
 * a seed picks the same cases as before the split.
 */
import { caseKit, head, randomJson, request } from './fuzz-requests.mjs';

/** The wire families and their weights, for the live webhooks and admin token of `ctx`. */
export function wireFamilies(ctx) {
  const { auth, json, target, secretFor } = caseKit(ctx);
  return [
    {
      family: 'slow',
      weight: 2,
      make: (r) => ({
        chunks: request(r, {
          target: target(r),
          headers: [auth(r), json],
          body: Buffer.from(JSON.stringify({ data: randomJson(r) })),
          slow: true,
          chunked: r.chance(0.4),
        }),
      }),
    },
    {
      family: 'truncated',
      weight: 3,
      make: (r) => {
        const body = Buffer.from(JSON.stringify({ data: randomJson(r) }));
        const base = [['Host', '127.0.0.1'], auth(r), json];
        const shape = r.int(0, 3);
        const cut = (bytes) => ({ chunks: [{ bytes }], halfClose: true });
        if (shape === 0)
          return cut(Buffer.concat([head('POST', target(r), [...base, ['Content-Length', String(body.length + r.int(1, 5000))]]), body]));
        if (shape === 1)
          return cut(
            Buffer.concat([
              head('POST', target(r), [...base, ['Transfer-Encoding', 'chunked']]),
              Buffer.from(`${(body.length + 10).toString(16)}\r\n`),
              body,
            ]),
          );
        if (shape === 2) return cut(head('POST', target(r), base).subarray(0, r.int(5, 60)));
        return cut(
          Buffer.concat([
            head('POST', target(r), [...base, ['Content-Length', String(body.length)]]),
            body.subarray(0, r.int(0, body.length)),
          ]),
        );
      },
    },
    {
      family: 'headers-big',
      weight: 2,
      make: (r) => {
        const headers = [auth(r), json];
        if (r.chance(0.5)) headers.push(['X-Big', 'x'.repeat(r.pick([8_000, 16_000, 17_000, 64_000, 200_000]))]);
        else for (let i = r.pick([100, 500, 2_000]); i > 0; i--) headers.push([`X-H${i}`, 'v']);
        if (r.chance(0.3)) headers.push(['X-Service-Account-Email', `${'a'.repeat(r.pick([300, 5000]))}@example.com`]);
        return { chunks: request(r, { target: target(r), headers, body: Buffer.from('{"data":1}') }) };
      },
    },
    {
      family: 'headers-bad',
      weight: 5,
      make: (r) => {
        const path = target(r);
        const bodyText = '{"data":1}';
        const shapes = [
          [['Content-Length', '-1']],
          [['Content-Length', 'abc']],
          [
            ['Content-Length', '10'],
            ['Content-Length', '11'],
          ],
          [['Content-Length', '1e3']],
          [
            ['Content-Length', String(bodyText.length)],
            ['Transfer-Encoding', 'chunked'],
          ],
          [['Transfer-Encoding', 'gzip, chunked']],
          [['Transfer-Encoding', 'chunked, identity']],
          [['X-Bad\u00ff', 'v']],
          [['X-Ctl', 'a\u0001b']],
          [['Bad Header', 'v']],
          [['X-Fold', 'a\r\n b']],
          [['X-Service-Idempotency-Key', r.pick(['', ' ', 'k\u00e9y', 'x'.repeat(256), 'a b'])]],
          [['X-Service-Account-Email', r.pick(['', '\u00ff@x', 'a@b.c', 'x'.repeat(1000)])]],
          [
            ['Authorization', `Bearer ${secretFor(path)}`],
            ['Authorization', 'Bearer other'],
          ],
          [['Expect', '100-continue']],
          [['Expect', 'bogus']],
          [['Host', 'evil.example']],
          [['X-Forwarded-For', '1.2.3.4, 5.6.7.8']],
          [['Content-Length', '99999999999999999999']],
        ];
        const extra = r.pick(shapes);
        const headers = [
          ['Host', '127.0.0.1'],
          ['Connection', 'close'],
          json,
          ...(extra.some(([name]) => name === 'Authorization') ? [] : [auth(r, secretFor(path))]),
          ...extra,
        ];
        if (!extra.some(([name]) => name === 'Content-Length' || name === 'Transfer-Encoding'))
          headers.push(['Content-Length', String(bodyText.length)]);
        return { chunks: [{ bytes: Buffer.concat([head('POST', path, headers), Buffer.from(bodyText)]) }] };
      },
    },
    {
      family: 'account',
      weight: 4,
      make: (r) => {
        const email = r.pick([
          ctx.override.email,
          ctx.override.email.toUpperCase(),
          'nobody@example.com',
          '',
          ' ',
          '\u212a@example.com',
          'a'.repeat(2000),
          ctx.enabled.email,
        ]);
        if (r.chance(0.5)) {
          const headers = [auth(r, ctx.override.secret), ['Content-Type', 'text/plain'], ['X-Service-Account-Email', email]];
          return { chunks: request(r, { target: r.pick([ctx.override.path, ctx.enabled.path]), headers, body: Buffer.from('hello') }) };
        }
        const selection = r.pick([email, 42, null, [email], { email }, true]);
        return {
          chunks: request(r, {
            target: r.pick([ctx.override.path, ctx.enabled.path]),
            headers: [auth(r, ctx.override.secret), json],
            body: Buffer.from(JSON.stringify({ account_email: selection, data: { n: r.int(0, 9) } })),
          }),
        };
      },
    },
    {
      family: 'request-line',
      weight: 4,
      make: (r) => {
        const lines = [
          `GET ${ctx.enabled.path} HTTP/1.0\r\n\r\n`,
          `GET ${ctx.enabled.path}\r\n\r\n`,
          `POST ${ctx.enabled.path} HTTP/9.9\r\n\r\n`,
          `POST ${ctx.enabled.path} HTTP/2.0\r\nHost: x\r\n\r\n`,
          'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
          `POST  ${ctx.enabled.path}  HTTP/1.1\r\nHost: x\r\n\r\n`,
          `POST ${ctx.enabled.path} HTTP/1.1\nHost: x\n\n`,
          '\r\n\r\n\r\n',
          `POST ${ctx.enabled.path} HTTP/1.1\r\n\r\n`,
          'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n',
          `POST /${'\u0000'.repeat(10)} HTTP/1.1\r\nHost: x\r\n\r\n`,
          `GET /${'%'.repeat(3)} HTTP/1.1\r\nHost: x\r\n\r\n`,
          'GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
          'GET / HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\n\r\n',
        ];
        const bytes = r.chance(0.3) ? r.bytes(r.int(1, 2000)) : Buffer.from(r.pick(lines), 'latin1');
        // Half-closed: a request line the server accepts without Connection: close would otherwise wait for keep-alive.
        return { chunks: [{ bytes }], halfClose: true };
      },
    },
    {
      family: 'pipelined',
      weight: 2,
      make: (r) => {
        const count = r.int(2, 5);
        const broken = r.chance(0.15);
        const parts = [];
        for (let i = 0; i < count; i++) {
          const body = Buffer.from(JSON.stringify({ data: { i } }));
          const last = i === count - 1 ? [['Connection', 'close']] : [];
          parts.push(
            head('POST', target(r), [
              ['Host', 'x'],
              auth(r),
              json,
              ...last,
              ['Content-Length', String(body.length + (broken && i === 0 ? 3 : 0))],
            ]),
            body,
          );
        }
        // A wrong length desynchronises the stream: the client then gives up (half-close).
        return { chunks: [{ bytes: Buffer.concat(parts) }], expectResponses: count, halfClose: broken };
      },
    },
    {
      family: 'idempotency',
      weight: 3,
      make: (r) => {
        const key = r.pick([`same-${r.int(0, 3)}`, `k${r.int(0, 1e6)}`, 'x'.repeat(255), '!~', '\u00e9', '']);
        return {
          chunks: request(r, {
            target: ctx.enabled.path,
            headers: [auth(r), json, ['X-Service-Idempotency-Key', key]],
            body: Buffer.from(JSON.stringify({ data: { v: r.int(0, 3) } })),
          }),
        };
      },
    },
  ];
}
