import type { ConfigurationFeeder } from '@wts/application';
import { JobLifecycle } from '@wts/platform';

/** Before serving: the configuration is folded, and followed from then on; on shutdown the subscription stops. */
export class ConfigurationFeederLifecycle extends JobLifecycle {
  constructor(feeder: ConfigurationFeeder) {
    super(feeder, 'before serving');
  }
}
