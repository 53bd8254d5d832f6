import { Option, type OptionMetadata } from 'nest-commander';
import { OPERATOR_OPTION } from './operator-action.recorder';

/**
 * How a command's option is read, the same in every command: a value kept as typed (the command
 * checks it), a flag that is true when given, or a repeatable value collected in order.
 */
type OptionKind = 'value' | 'flag' | 'repeatable';

export interface CommandOption {
  readonly kind: OptionKind;
  readonly metadata: OptionMetadata;
}

type Parser = (value: string, previous?: string[]) => string | string[] | boolean;

/** A new function per option: nest-commander keeps an option's metadata on its parse function. */
const PARSERS: Readonly<Record<OptionKind, () => Parser>> = {
  value: () => (value) => value,
  flag: () => () => true,
  repeatable: () => (value, previous) => [...(previous ?? []), value],
};

export const value = (flags: string, description: string): CommandOption => ({ kind: 'value', metadata: { flags, description } });
export const flag = (flags: string, description: string): CommandOption => ({ kind: 'flag', metadata: { flags, description } });
export const repeatable = (flags: string, description: string): CommandOption => ({ kind: 'repeatable', metadata: { flags, description } });

/** `--operator <name>`: who runs this, for the audit trail. */
export const OPERATOR = value(OPERATOR_OPTION.flags, OPERATOR_OPTION.description);

/** `--json`: the answer as one JSON object, said per command. */
export const json = (description: string): CommandOption => flag('--json', description);

/** `--delivery-id <id>` → `parseDeliveryId`: the name the option's parse method had when written by hand. */
function methodName(flags: string): string {
  const long = /--([a-z0-9-]+)/.exec(flags)?.[1] ?? flags;
  return `parse${long.replace(/(^|-)([a-z0-9])/g, (_match: string, _dash: string, letter: string) => letter.toUpperCase())}`;
}

/**
 * Declares a command's options in the order `--help` lists them: one parse method each on the
 * class, decorated with nest-commander's `@Option` as a hand-written one would be.
 */
export function CommandOptions(...options: readonly CommandOption[]): ClassDecorator {
  return (target) => {
    const prototype = target.prototype as object;
    for (const { kind, metadata } of options) {
      const name = methodName(metadata.flags);
      const descriptor: PropertyDescriptor = { value: PARSERS[kind](), writable: true, configurable: true, enumerable: false };
      Option(metadata)(prototype, name, descriptor);
      Object.defineProperty(prototype, name, descriptor);
    }
  };
}
