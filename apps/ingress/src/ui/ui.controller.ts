import { Controller, Get, Header, NotFoundException, Param, Res } from '@nestjs/common';
import { isWellFormedId } from '@wts/domain';
import type { FastifyReply } from 'fastify';
import { ASSET_NAME, loadUiFiles, type UiFile, type UiFiles } from './ui-assets';
import { uiSecurityHeaders } from './ui-security.headers';
import { SignInSettingsHolder, type SignInSettings } from './sign-in.setting';

/**
 * The Config page (routine list, Webhook section): static files from an allow-list, read once at
 * startup, each with the CSP and the security headers. The pages hold no data: they call the
 * admin API with the token the user signs in with.
 *
 *   GET /ui                         → 308 to /ui/
 *   GET /ui/                        → the routine list
 *   GET /ui/routines/{id}/config    → the Config page of a routine (the script reads the id)
 *   GET /ui/assets/{name}           → scripts, styles, icon
 *   GET /ui/assets/vendor/{name}    → libraries from node_modules (oauth4webapi.js)
 *   GET /ui/sign-in-settings        → how the page signs people in (JSON)
 *
 * `/ui/` is also where the identity provider sends people back after signing in (the OIDC
 * redirect URI operators register: `{origin}/ui/`), and after signing out.
 */
@Controller('ui')
export class UiController {
  private readonly files: UiFiles = loadUiFiles();
  /** The CSP allows the identity provider's origin when there is one: built once, from the settings. */
  private readonly headers: Readonly<Record<string, string>>;

  constructor(private readonly signIn: SignInSettingsHolder) {
    this.headers = uiSecurityHeaders(signIn.settings.oidc);
  }

  /** How the page signs people in (public: the provider and the client id, nothing secret). */
  @Get('sign-in-settings')
  @Header('cache-control', 'no-store')
  signInSettings(): SignInSettings {
    return this.signIn.settings;
  }

  @Get()
  root(@Res() reply: FastifyReply): void {
    void reply.headers(this.headers).redirect('/ui/', 308);
  }

  @Get('routines/:id/config')
  config(@Param('id') id: string, @Res() reply: FastifyReply): void {
    if (!isWellFormedId('routine', id)) throw new NotFoundException('no such page');
    this.send(reply, this.files.pages.config);
  }

  @Get('assets/:name')
  asset(@Param('name') name: string, @Res() reply: FastifyReply): void {
    const file = ASSET_NAME.test(name) ? this.files.assets.get(name) : undefined;
    if (!file) throw new NotFoundException('no such asset');
    this.send(reply, file);
  }

  @Get('assets/vendor/:name')
  vendor(@Param('name') name: string, @Res() reply: FastifyReply): void {
    const file = this.files.vendor.get(name);
    if (!file) throw new NotFoundException('no such asset');
    this.send(reply, file);
  }

  /** Nest strips a trailing slash from route paths: `/ui/` is reached through the wildcard. */
  @Get('*')
  list(@Param('*') rest: string | undefined, @Res() reply: FastifyReply): void {
    if (rest !== undefined && rest !== '') throw new NotFoundException('no such page');
    this.send(reply, this.files.pages.list);
  }

  private send(reply: FastifyReply, file: UiFile): void {
    void reply.status(200).headers(this.headers).header('content-type', file.contentType).send(file.body);
  }
}
