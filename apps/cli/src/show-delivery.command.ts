import { Inject } from '@nestjs/common';
import { Streams } from '@wts/contracts';
import { isWellFormedId } from '@wts/domain';
import { CommandRunner, SubCommand } from 'nest-commander';
import { CLI_CONTEXT, type CliContext } from './cli.context';
import { UsageError } from './cli.errors';
import { showStream } from './show-stream';

@SubCommand({ name: 'delivery', arguments: '<delivery_id>', description: 'print the delivery-<id> stream (DeliveryAccepted) as JSON' })
export class ShowDeliveryCommand extends CommandRunner {
  constructor(@Inject(CLI_CONTEXT) private readonly context: CliContext) {
    super();
  }

  async run([deliveryId]: string[]): Promise<void> {
    if (!isWellFormedId('delivery', deliveryId)) throw new UsageError([`not a delivery id: "${deliveryId}" (expected dlv_…)`]);
    await showStream(this.context, Streams.delivery(deliveryId), `no delivery ${deliveryId} in the event store`);
  }
}
