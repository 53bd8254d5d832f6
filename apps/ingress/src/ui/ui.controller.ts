import { Controller, Get, Header, NotFoundException, Param, Res } from '@nestjs/common';
import { isWellFormedId } from '@wts/domain';
import type { FastifyReply } from 'fastify';
import { ASSET_NAME, loadUiFiles, type UiFile, type UiFiles } from './ui-assets';
import { UI_SECURITY_HEADERS } from './ui-security.headers';
import { SignInSettingsHolder, type SignInSettings } from './sign-in.settings';

/**
 * The Config page (routine list, Webhook section): static files from an allow-list, read once at
 * startup, each with the CSP and the security headers. The pages hold no data: they call the
 * admin API with the token the user signs in with.
 *
 *   GET /ui                         → 308 to /ui/
 *   GET /ui/                        → the routine list
 *   GET /ui/routines/{id}/config    → the Config page of a routine (the script reads the id)
 *   GET /ui/assets/{name}           → scripts, styles, icon
 *   GET /ui/sign-in-settings        → how the page signs people in (JSON)
 */
@Controller('ui')
export class UiController {
  private readonly files: UiFiles = loadUiFiles();

  constructor(private readonly signIn: SignInSettingsHolder) {}

  /** How the page signs people in (public: the provider and the client id, nothing secret). */
  @Get('sign-in-settings')
  @Header('cache-control', 'no-store')
  signInSettings(): SignInSettings {
    return this.signIn.settings;
  }

  @Get()
  root(@Res() reply: FastifyReply): void {
    void reply.headers(UI_SECURITY_HEADERS).redirect('/ui/', 308);
  }

  @Get('routines/:id/config')
  config(@Param('id') id: string, @Res() reply: FastifyReply): void {
    if (!isWellFormedId('routine', id)) throw new NotFoundException('no such page');
    send(reply, this.files.pages.config);
  }

  @Get('assets/:name')
  asset(@Param('name') name: string, @Res() reply: FastifyReply): void {
    const file = ASSET_NAME.test(name) ? this.files.assets.get(name) : undefined;
    if (!file) throw new NotFoundException('no such asset');
    send(reply, file);
  }

  /** Nest strips a trailing slash from route paths: `/ui/` is reached through the wildcard. */
  @Get('*')
  list(@Param('*') rest: string | undefined, @Res() reply: FastifyReply): void {
    if (rest !== undefined && rest !== '') throw new NotFoundException('no such page');
    send(reply, this.files.pages.list);
  }
}

function send(reply: FastifyReply, file: UiFile): void {
  void reply.status(200).headers(UI_SECURITY_HEADERS).header('content-type', file.contentType).send(file.body);
}
