import { OptionalNotNull } from './optional-not-null.decorator';
import { IsWellFormedId } from './well-formed-id.decorator';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsNotEmpty, IsObject, IsString, MaxLength, ValidateNested } from 'class-validator';
import type { RoutineDefinition, RoutineMode } from '@wts/contracts';

export class ToolDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @IsBoolean()
  sends_externally!: boolean;
}

const MODES: RoutineMode[] = ['supervised', 'autonomous'];

export class CreateRoutineDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @IsString()
  @MaxLength(100_000)
  instructions!: string;

  @IsArray()
  @ArrayMaxSize(200)
  @IsObject({ each: true, message: 'each tool must be an object {name, sends_externally}' })
  @ValidateNested({ each: true })
  @Type(() => ToolDto)
  tools!: ToolDto[];

  @IsIn(MODES, { message: 'mode must be "supervised" or "autonomous"' })
  mode!: RoutineMode;

  @IsArray()
  @ArrayMaxSize(1000)
  @IsWellFormedId('account', { each: true, message: 'account_scope must hold account ids (acc_…)' })
  account_scope!: string[];
}

export class UpdateRoutineDto {
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @OptionalNotNull()
  @IsString()
  @MaxLength(100_000)
  instructions?: string;

  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(200)
  @IsObject({ each: true, message: 'each tool must be an object {name, sends_externally}' })
  @ValidateNested({ each: true })
  @Type(() => ToolDto)
  tools?: ToolDto[];

  @OptionalNotNull()
  @IsIn(MODES, { message: 'mode must be "supervised" or "autonomous"' })
  mode?: RoutineMode;

  @OptionalNotNull()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsWellFormedId('account', { each: true, message: 'account_scope must hold account ids (acc_…)' })
  account_scope?: string[];
}

/** Snake_case HTTP fields to the domain's definition; only the fields that were sent. */
export function toChanges(dto: UpdateRoutineDto): Partial<RoutineDefinition> {
  return {
    ...(dto.name === undefined ? {} : { name: dto.name }),
    ...(dto.instructions === undefined ? {} : { instructions: dto.instructions }),
    ...(dto.tools === undefined ? {} : { tools: dto.tools.map((tool) => ({ name: tool.name, sendsExternally: tool.sends_externally })) }),
    ...(dto.mode === undefined ? {} : { mode: dto.mode }),
    ...(dto.account_scope === undefined ? {} : { accountScope: [...new Set(dto.account_scope)] }),
  };
}

export function toDefinition(dto: CreateRoutineDto): RoutineDefinition {
  return toChanges(dto) as RoutineDefinition;
}
