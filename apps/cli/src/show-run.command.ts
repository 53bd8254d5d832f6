import { SubCommand } from 'nest-commander';
import { ShowStreamCommand } from './show-stream';

@SubCommand({ name: 'run', arguments: '<run_id>', description: 'print the run-<id> stream (RunCreated) as JSON' })
export class ShowRunCommand extends ShowStreamCommand {
  protected readonly kind = 'run';
}
