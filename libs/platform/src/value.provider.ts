import type { Provider, Type } from '@nestjs/common';

/**
 * An object the service's composition built, registered with Nest under the class its consumers
 * (controllers, lifecycle hooks) are looked up by. Typed: the value must be an instance of it.
 */
export function provideValue<T>(token: Type<T>, value: T): Provider<T> {
  return { provide: token, useValue: value };
}
