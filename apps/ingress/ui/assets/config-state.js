// What the Config page loaded from the admin API, shared by its views. The secret shown once is
// not here: it lives in secret-panel.js only.

/** The routine this page configures, from /ui/routines/{id}/config. */
export const routineId = decodeURIComponent((/^\/ui\/routines\/([^/]+)\/config$/.exec(window.location.pathname) ?? [])[1] ?? '');

/** The admin API path of this routine (`suffix` appended). */
export function routinePath(suffix = '') {
  return `/admin/routines/${encodeURIComponent(routineId)}${suffix}`;
}

/** Loaded from the admin API: the routine, every account, the routine's webhook. */
export const loaded = {
  routine: null,
  accounts: [],
  webhook: null,
};
