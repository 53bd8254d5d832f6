import 'reflect-metadata';
import { BadRequestException } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsString } from 'class-validator';
import { AdminValidationPipe } from './admin-validation.pipe';

class ExplodingDto {
  @Transform(() => {
    throw new RangeError('Maximum call stack size exceeded');
  })
  @IsString()
  email!: string;
}

class PlainDto {
  @IsString()
  email!: string;
}

describe('AdminValidationPipe', () => {
  const pipe = new AdminValidationPipe();

  it('given a body the transformer cannot walk (RangeError), then 400, not a 500', async () => {
    await expect(pipe.transform({ email: 'x' }, { type: 'body', metatype: ExplodingDto })).rejects.toBeInstanceOf(BadRequestException);
  });

  it('given an invalid field, then the usual 400 naming it', async () => {
    const error = (await pipe
      .transform({ email: 1 }, { type: 'body', metatype: PlainDto })
      .catch((e: unknown) => e)) as BadRequestException;
    expect(error).toBeInstanceOf(BadRequestException);
    expect(JSON.stringify(error.getResponse())).toMatch(/email must be a string/);
  });

  it('given a valid body, then the DTO', async () => {
    await expect(pipe.transform({ email: 'a@example.com' }, { type: 'body', metatype: PlainDto })).resolves.toBeInstanceOf(PlainDto);
  });
});
