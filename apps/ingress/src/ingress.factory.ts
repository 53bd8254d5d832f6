import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController } from 'fastify';
import { ServiceLogger, createServiceLogger } from '@wts/platform';
import { AdmittedOperatorGuard } from './access/admitted-operator.guard';
import { logEachRequest } from './http/access-log';
import { installBodyParsing } from './http/body-parsing';
import { ProblemFilter, answerFrameworkError } from './http/problem.filter';
import { AdminValidationPipe } from './http/admin-validation.pipe';
import { UnreadableBodyPipe } from './http/unreadable-body.pipe';
import { composeIngress, type IngressDependencies } from './ingress.composition';
import { IngressModule } from './ingress.module';
import { registerWebhookTriggerRoute } from './webhook/webhook-trigger.route';

const ADMIN_MAX_BODY_BYTES = 1024 * 1024;

/** Builds the ingress (not listening yet): used by main.ts and by the integration tests. */
export async function createIngressApp(deps: IngressDependencies): Promise<NestFastifyApplication> {
  const logger = createServiceLogger(deps.config.log, 'ingress');
  const adapter = new FastifyAdapter({
    // Fastify's own pino integration logs requests (one line each, logEachRequest).
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    // TRUST_PROXY: only these peers may name the client with X-Forwarded-For (request.ip).
    trustProxy: deps.config.http.trustProxy === false ? false : [...deps.config.http.trustProxy],
    return503OnClosing: true,
    requestTimeout: 30_000,
    // Ids are matched by the use case (unknown → the one 404), not cut off by the router.
    routerOptions: { maxParamLength: 2048 },
    frameworkErrors: answerFrameworkError,
  });
  const graph = composeIngress(deps);
  const app = await NestFactory.create<NestFastifyApplication>(IngressModule.forRoot(deps, graph), adapter, {
    bufferLogs: true,
    abortOnError: false,
    // The module holds the composed graph: named by reference, not by deep-hashing every object in it.
    moduleIdGeneratorAlgorithm: 'reference',
    // Our own parser serves the admin routes (installBodyParsing); the public one reads its body itself.
    bodyParser: false,
  });
  app.useLogger(new ServiceLogger(logger));
  const fastify = app.getHttpAdapter().getInstance();
  logEachRequest(fastify);
  installBodyParsing(fastify, ADMIN_MAX_BODY_BYTES, graph.admission);
  registerWebhookTriggerRoute(fastify, graph.trigger);
  app.useGlobalGuards(new AdmittedOperatorGuard());
  app.useGlobalFilters(new ProblemFilter());
  app.useGlobalPipes(new UnreadableBodyPipe(), new AdminValidationPipe());
  await app.init();
  await fastify.ready();
  return app;
}
