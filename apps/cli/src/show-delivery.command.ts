import { SubCommand } from 'nest-commander';
import { ShowStreamCommand } from './show-stream';

@SubCommand({ name: 'delivery', arguments: '<delivery_id>', description: 'print the delivery-<id> stream (DeliveryAccepted) as JSON' })
export class ShowDeliveryCommand extends ShowStreamCommand {
  protected readonly kind = 'delivery';
}
