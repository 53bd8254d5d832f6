// An admin listing (routines, connected accounts, API keys on the routine list; rejected attempts
// and parked deliveries on the Config page): loaded with a GET, its failure said in the listing's
// error line, and its table or "none yet" line shown.
import { byId, clear, setError, show } from './dom.js';
import { SignedOutError, api, describeFailure } from './session.js';

/**
 * GETs `path`; a success clears the error line `errorId` and hands the answer's JSON to `loaded`,
 * a failure says "Could not load the {what}" there (nothing when signed out: the sign-in shows).
 */
export async function loadListing(errorId, path, what, loaded) {
  const error = byId(errorId);
  try {
    const answer = await api('GET', path);
    if (!answer.ok) {
      setError(error, `Could not load the ${what}: ${describeFailure(answer)}`);
      return;
    }
    setError(error, '');
    loaded(answer.json);
  } catch (failure) {
    if (!(failure instanceof SignedOutError)) setError(error, 'Could not reach the server.');
  }
}

/** Empties `{name}-body` and shows `{name}-table` when there are rows, `{name}-empty` when none; returns the body. */
export function listingBody(name, rows) {
  const body = byId(`${name}-body`);
  clear(body);
  show(byId(`${name}-empty`), rows === 0);
  show(byId(`${name}-table`), rows > 0);
  return body;
}
