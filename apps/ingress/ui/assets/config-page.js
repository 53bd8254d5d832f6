// A routine's Config page, Webhook section: state, setup (default account, override, Enable),
// the secret shown once (enable, rotate), Rotate, Disable, payload retention, Hold and Release,
// the routine rules (filter and payload schema, tried on a sample before saving), test delivery,
// recent deliveries and their runs, rejected attempts, parked deliveries (and re-dispatching them),
// and the routine's audit trail (who did what). Listings page with "Show older" (the API's cursors).
// Every value from the server reaches the page as text only. One module a view: webhook-panel
// (with rotate-form and retention-panel), rules-panel (with rules-try), hold-panel, secret-panel,
// test-delivery, activity-listings, parked-redispatch, run-record, audit-trail; what they share is
// in config-state.
import { byId, setError, show } from './dom.js';
import { SignedOutError, api, describeFailure } from './session.js';
import { withSession } from './sign-in-panel.js';
import { gate } from './roles.js';
import { loaded, routineId, routinePath } from './config-state.js';
import { configureAudit, loadAudit, wireAuditTrail } from './audit-trail.js';
import { renderRoutine, renderWebhook, wireWebhookPanel } from './webhook-panel.js';
import { wireHoldPanel } from './hold-panel.js';
import { wireRulesPanel } from './rules-panel.js';
import { wireReleaseActions } from './release-actions.js';
import { wireParkedRedispatch } from './parked-redispatch.js';
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
    const reads = gate('viewer', { controls: [byId('audit-body')], note: byId('audit-role'), what: 'Reading the audit trail' });
    await Promise.all([loadDeliveries(), loadAttempts(), loadParked(), reads ? loadAudit() : undefined]);
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(pageError, 'Could not reach the server.');
  }
}

wireWebhookPanel();
wireRulesPanel();
wireHoldPanel({ changed: () => renderWebhook({ resetForm: true }) });
wireReleaseActions();
wireSecretPanel();
wireTestDelivery();
wireActivityListings();
wireParkedRedispatch();
wireRunRecord();
wireAuditTrail();
configureAudit({ routineId });
withSession(() => {
  void loadAll();
});
