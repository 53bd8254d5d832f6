// A routine's Config page, Webhook section: state, setup (default account, override, Enable),
// the secret shown once (enable, rotate), Rotate, Disable, test delivery, recent deliveries and
// their runs, rejected attempts, parked deliveries. Listings page with "Show older" (the API's
// cursors). Every value from the server reaches the page as text only. One module a view:
// webhook-panel, secret-panel, test-delivery, activity-listings, run-record; what they share
// is in config-state.
import { byId, setError, show } from './dom.js';
import { SignedOutError, api, describeFailure, withSession } from './session.js';
import { loaded, routinePath } from './config-state.js';
import { renderRoutine, renderWebhook, wireWebhookPanel } from './webhook-panel.js';
import { wireSecretPanel } from './secret-panel.js';
import { wireTestDelivery } from './test-delivery.js';
import { loadAttempts, loadDeliveries, loadParked, wireActivityListings } from './activity-listings.js';
import { wireRunRecord } from './run-record.js';

async function loadAll() {
  const pageError = byId('page-error');
  try {
    const [routineAnswer, accountsAnswer, webhookAnswer] = await Promise.all([
      api('GET', routinePath()),
      api('GET', '/admin/accounts'),
      api('GET', routinePath('/webhook')),
    ]);
    if (routineAnswer.status === 404) {
      show(byId('main'), false);
      setError(pageError, 'There is no such routine.');
      return;
    }
    for (const answer of [routineAnswer, accountsAnswer, webhookAnswer]) {
      if (!answer.ok) {
        setError(pageError, `Could not load the Config page: ${describeFailure(answer)}`);
        return;
      }
    }
    setError(pageError, '');
    loaded.routine = routineAnswer.json;
    loaded.accounts = accountsAnswer.json.accounts;
    loaded.webhook = webhookAnswer.json;
    renderRoutine();
    renderWebhook({ resetForm: true });
    await Promise.all([loadDeliveries(), loadAttempts(), loadParked()]);
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(pageError, 'Could not reach the server.');
  }
}

wireWebhookPanel();
wireSecretPanel();
wireTestDelivery();
wireActivityListings();
wireRunRecord();
withSession(() => {
  void loadAll();
});
