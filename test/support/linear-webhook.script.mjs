// Linear's own verdicts, for the Linear signature specs: @linear/sdk is ESM-only, which ts-jest
// (CommonJS) cannot require, so its LinearWebhookClient runs here, in a child Node process.
// stdin: a JSON array of {secret, body (base64), signature, nowMs}; stdout: a JSON array of booleans,
// whether LinearWebhookClient.parseData took each delivery at that time (its clock is Date.now).
import { LinearWebhookClient } from '@linear/sdk/webhooks';
import { Buffer } from 'node:buffer';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const cases = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const realNow = Date.now;
const verdicts = cases.map(({ secret, body, signature, nowMs }) => {
  Date.now = () => nowMs;
  try {
    new LinearWebhookClient(secret).parseData(Buffer.from(body, 'base64'), signature);
    return true;
  } catch {
    return false;
  } finally {
    Date.now = realNow;
  }
});
process.stdout.write(JSON.stringify(verdicts));
