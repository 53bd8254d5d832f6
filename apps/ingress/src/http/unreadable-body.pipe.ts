import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { UnreadableBody } from './body-parsing';

/** Pipes run after guards: body errors surface only for authorised requests. */
@Injectable()
export class UnreadableBodyPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'body' && value instanceof UnreadableBody) throw value.error;
    return value;
  }
}
