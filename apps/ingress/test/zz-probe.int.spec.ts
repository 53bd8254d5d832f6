import { IngressTestApp } from '../../../test/support/ingress-test-app';
it('probe', async () => {
  const t = await IngressTestApp.start();
  const h = await t.setupWebhook();
  for (const ct of ['not a media type', 'application/json;', 'application/json; charset', 'text/plain; charset="utf-8"', 'application/json ; charset=utf-8']) {
    for (const auth of ['Bearer whsec_wrong', `Bearer ${h.secret}`]) {
      const r = await t.rawRequest('POST', t.webhookPath(h.webhookId), { authorization: auth, 'content-type': ct, 'content-length': 2 }, ['{}']);
      console.log(JSON.stringify(ct), auth.slice(0, 14), r.status, r.headers['content-type'], r.body.toString());
    }
  }
  const r = await t.rawRequest('POST', t.webhookPath(h.webhookId), { authorization: `Bearer ${h.secret}`, 'content-length': 2 }, ['{}']);
  console.log('missing', r.status, r.body.toString());
  await t.close();
});
