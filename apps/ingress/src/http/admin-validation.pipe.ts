import { type ArgumentMetadata, BadRequestException, HttpException, Injectable, ValidationPipe } from '@nestjs/common';

/**
 * Nest's ValidationPipe (whitelist, no unknown fields, transform), where anything the transformer
 * or the validator throws on a hostile body — a RangeError of too deep a recursion, a getter that
 * throws — is the body's fault: 400 validation_failed, never a 500.
 */
@Injectable()
export class AdminValidationPipe extends ValidationPipe {
  constructor() {
    super({ whitelist: true, forbidNonWhitelisted: true, transform: true, forbidUnknownValues: true });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    try {
      return (await super.transform(value, metadata)) as unknown;
    } catch (error) {
      if (error instanceof HttpException) throw error;
      throw new BadRequestException([`the request ${metadata.type} cannot be read as the expected shape`]);
    }
  }
}
