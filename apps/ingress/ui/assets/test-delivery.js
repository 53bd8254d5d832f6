// "Send test delivery": a real request from this browser to the webhook endpoint, with the secret
// on screen or one pasted here (kept in this page's memory only).
import { byId } from './dom.js';
import { fetchOwn, jsonOf } from './session.js';
import { loaded } from './config-state.js';
import { currentSecret } from './secret-panel.js';
import { loadAttempts, loadDeliveries } from './activity-listings.js';

const DEFAULT_TEST_BODY = '{"data":{"message":"Test delivery from the Config page"}}';

async function sendTest(event) {
  event.preventDefault();
  const result = byId('test-result');
  const secretField = byId('test-secret');
  const secret = secretField.value.trim() !== '' ? secretField.value.trim() : currentSecret();
  if (!secret) {
    result.textContent = 'Paste the webhook secret first: the page no longer has it.';
    secretField.focus();
    return;
  }
  const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
  const key = byId('test-idempotency').value.trim();
  if (key !== '') headers['x-service-idempotency-key'] = key;
  const button = byId('send-test');
  button.disabled = true;
  result.textContent = 'Sending…';
  try {
    // Same origin, the real endpoint: the page is served by the ingress that serves the webhook.
    const path = `/workflow-webhooks/${encodeURIComponent(loaded.webhook.webhook_id)}`;
    const response = await fetchOwn('POST', path, headers, byId('test-body').value);
    const body = jsonOf(await response.text());
    result.textContent = describeTestAnswer(response, body);
    if (response.status === 202 && body) await waitForDelivery(body.delivery_id);
    void loadAttempts();
  } catch {
    result.textContent = 'The request could not be sent.';
  } finally {
    button.disabled = false;
  }
}

function describeTestAnswer(response, body) {
  if (response.status === 202 && body) {
    const replayed = response.headers.get('idempotent-replayed') === 'true' ? ' (replayed: the first answer to this idempotency key)' : '';
    return `202 Accepted: delivery ${body.delivery_id}, run ${body.run_id}${replayed}.`;
  }
  if (response.status === 404) {
    return '404 Not Found: the secret is wrong or the webhook is disabled (callers cannot tell which; see Rejected attempts).';
  }
  const detail = body && typeof body === 'object' ? [body.code, body.detail].filter((part) => typeof part === 'string').join(': ') : '';
  return `${response.status} ${response.statusText}${detail === '' ? '' : `: ${detail}`}`;
}

/** The listing follows the store a moment behind the 202: poll briefly for the new delivery. */
async function waitForDelivery(deliveryId) {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const deliveries = await loadDeliveries();
    if (!deliveries || deliveries.some((delivery) => delivery.delivery_id === deliveryId)) return;
    await new Promise((resolve) => window.setTimeout(resolve, 150));
  }
}

export function wireTestDelivery() {
  byId('test-form').addEventListener('submit', (event) => void sendTest(event));
  byId('test-body').value = DEFAULT_TEST_BODY;
}
