import { ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ServiceLogger } from '@wts/platform';
import { Logger } from 'nestjs-pino';
import { installBodyParsing } from './http/body-parsing';
import { ProblemFilter, answerFrameworkError } from './http/problem.filter';
import { UnreadableBodyPipe } from './http/unreadable-body.pipe';
import { IngressModule, type IngressDependencies } from './ingress.module';

const ADMIN_MAX_BODY_BYTES = 1024 * 1024;

/** Builds the ingress (not listening yet): used by main.ts and by the integration tests. */
export async function createIngressApp(deps: IngressDependencies): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    trustProxy: false,
    return503OnClosing: true,
    requestTimeout: 30_000,
    // Ids are matched by the use case (unknown → the one 404), not cut off by the router.
    routerOptions: { maxParamLength: 2048 },
    frameworkErrors: answerFrameworkError,
  });
  const app = await NestFactory.create<NestFastifyApplication>(IngressModule.forRoot(deps), adapter, {
    bufferLogs: true,
    abortOnError: false,
    // Our own parser decides per route (installBodyParsing); Nest's would read webhook bodies early.
    bodyParser: false,
  });
  app.useLogger(new ServiceLogger(app.get(Logger)));
  installBodyParsing(app.getHttpAdapter().getInstance(), ADMIN_MAX_BODY_BYTES);
  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(
    new UnreadableBodyPipe(),
    new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true, forbidUnknownValues: true }),
  );
  app.enableShutdownHooks();
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return app;
}
