// One modal confirmation for the page's irreversible actions (rotate, disable, revoke a key).
import { byId } from './dom.js';

let wired = false;

function wire(dialog) {
  if (wired) return;
  wired = true;
  byId('confirm-cancel').addEventListener('click', () => dialog.close('cancel'));
  byId('confirm-ok').addEventListener('click', () => dialog.close('confirm'));
}

/** A modal confirmation; resolves true on confirm. Cancel is focused first; Escape cancels. */
export function confirmAction({ title, message, confirmLabel }) {
  const dialog = byId('confirm-dialog');
  wire(dialog);
  byId('confirm-title').textContent = title;
  byId('confirm-message').textContent = message;
  byId('confirm-ok').textContent = confirmLabel;
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'confirm'), { once: true });
    dialog.showModal();
    byId('confirm-cancel').focus();
  });
}

/**
 * Asks before the action `button` starts: cancelled, the focus goes back to the button and this
 * resolves false; confirmed, the button is disabled (the action enables it again) and it resolves true.
 */
export async function confirmFor(button, confirmation) {
  if (!(await confirmAction(confirmation))) {
    button.focus();
    return false;
  }
  button.disabled = true;
  return true;
}
