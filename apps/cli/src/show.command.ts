import { Command, CommandRunner } from 'nest-commander';
import { UsageError } from './cli.errors';
import { ShowDeliveryCommand } from './show-delivery.command';
import { ShowRunCommand } from './show-run.command';

@Command({
  name: 'show',
  description: 'print a stored delivery or run as pretty JSON',
  subCommands: [ShowDeliveryCommand, ShowRunCommand],
})
export class ShowCommand extends CommandRunner {
  async run(): Promise<void> {
    throw new UsageError(['show what? show delivery <delivery_id> | show run <run_id>']);
  }
}
