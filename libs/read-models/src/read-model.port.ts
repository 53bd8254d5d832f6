/**
 * The port this library implements, re-exported from its one home (the same module that
 * `@wts/application` re-exports), so the adapters, their callers and the tests share the same
 * error classes and `instanceof` holds across them. Imported by path rather than through the
 * `@wts/application` index: the adapters need two error classes at run time, not the whole
 * application layer, and the multi-process SQLite test loads these sources without path aliases.
 */
export {
  InvalidCursorError,
  ReadModelUnavailableError,
  type AttemptRow,
  type DeliveryListRow,
  type DeliveryRow,
  type Page,
  type PageRequest,
  type ParkedRow,
  type ProjectionChange,
  type ReadModelStore,
  type RunRow,
  type TriggerAccountRow,
} from '../../application/src/projection/read-model.port';
