import { Module, type DynamicModule } from '@nestjs/common';
import { CLI_CONTEXT, type CliContext } from './cli.context';
import { CommanderSetup } from './cli.runner';
import { EraseCommand } from './erase.command';
import { KafkaAclsCommand } from './kafka-acls.command';
import { RebuildReadModelsCommand } from './rebuild-read-models.command';
import { ReplayCommand } from './replay.command';
import { RotateEncryptionKeyCommand } from './rotate-encryption-key.command';
import { ShowDeliveryCommand } from './show-delivery.command';
import { ShowRunCommand } from './show-run.command';
import { ShowCommand } from './show.command';
import { TailCommand } from './tail.command';

/** The operator CLI: commands are providers; the context carries env, streams and the exit code. */
@Module({})
export class CliModule {
  static forRoot(context: CliContext): DynamicModule {
    return {
      module: CliModule,
      providers: [
        { provide: CLI_CONTEXT, useValue: context },
        CommanderSetup,
        ReplayCommand,
        RebuildReadModelsCommand,
        TailCommand,
        ShowCommand,
        ShowDeliveryCommand,
        ShowRunCommand,
        KafkaAclsCommand,
        RotateEncryptionKeyCommand,
        EraseCommand,
      ],
    };
  }
}
